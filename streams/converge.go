package streams

import (
	"context"
	"errors"
	"reflect"

	"github.com/nats-io/nats.go/jetstream"
)

// Covers reports whether have, a configuration as the server reports it,
// already makes every setting want makes: each field of want that is not
// its zero value is equal in have (a map's keys need only be in have with
// the same values, since the server adds its own metadata). Fields want
// leaves zero are the server's to fill and are not compared.
//
// Provisioning updates an asset only where have does not cover want. An
// update is a proposal through the cluster's meta layer: on slow storage
// it takes seconds, and every instance proposing a no-op update for every
// asset at start starves the updates that matter.
func Covers[C jetstream.StreamConfig | jetstream.ConsumerConfig](have, want C) bool {
	h, w := reflect.ValueOf(have), reflect.ValueOf(want)
	for i := range w.NumField() {
		wf, hf := w.Field(i), h.Field(i)
		if wf.IsZero() {
			continue
		}
		if wf.Kind() == reflect.Map {
			for _, k := range wf.MapKeys() {
				hv := hf.MapIndex(k)
				if !hv.IsValid() || !reflect.DeepEqual(hv.Interface(), wf.MapIndex(k).Interface()) {
					return false
				}
			}
			continue
		}
		if !reflect.DeepEqual(wf.Interface(), hf.Interface()) {
			return false
		}
	}
	return true
}

// EnsureStream creates the stream cfg names, or updates it to cfg where
// it does not cover cfg already, and returns it.
func EnsureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, cfg.Name)
	switch {
	case err == nil && Covers(s.CachedInfo().Config, cfg):
		return s, nil
	case errors.Is(err, jetstream.ErrStreamNotFound):
		// Another instance may create it first, alike (the server then
		// answers as if this one had) or not.
		if s, err = js.CreateStream(ctx, cfg); !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return s, err
		}
	case err != nil:
		return nil, err
	}
	return js.UpdateStream(ctx, cfg)
}

// ensureBucket creates the key-value bucket cfg names, or updates it to
// cfg where its stream does not have cfg's settings already.
func ensureBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) error {
	s, err := js.Stream(ctx, "KV_"+cfg.Bucket)
	switch {
	case err == nil && Covers(s.CachedInfo().Config, bucketSettings(cfg)):
		return nil
	case errors.Is(err, jetstream.ErrStreamNotFound):
		if _, err = js.CreateKeyValue(ctx, cfg); !errors.Is(err, jetstream.ErrBucketExists) {
			return err
		}
	case err != nil:
		return err
	}
	_, err = js.UpdateKeyValue(ctx, cfg)
	return err
}

// bucketSettings returns the settings of the stream under a bucket that
// cfg makes, as nats.go maps them.
func bucketSettings(cfg jetstream.KeyValueConfig) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Description:       cfg.Description,
		MaxMsgsPerSubject: int64(cfg.History),
		MaxBytes:          cfg.MaxBytes,
		MaxAge:            cfg.TTL,
		MaxMsgSize:        cfg.MaxValueSize,
		Storage:           cfg.Storage,
		Replicas:          cfg.Replicas,
	}
}
