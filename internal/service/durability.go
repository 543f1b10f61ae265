package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// ProductionReplicas is the replica count production expects of every
// stream: one server can fail without losing data or stopping.
const ProductionReplicas = 3

// checkDurability logs what a crash can lose. In production it warns
// about every stream with fewer than ProductionReplicas replicas or in
// memory, every server that does not fsync each write, and, with
// -nats-url, a connection without credentials or TLS.
func (s *Service) checkDurability(ctx context.Context, js jetstream.JetStream, cfg Config) {
	if !cfg.Production {
		if cfg.NATSURL != "" {
			s.log.Info("durability: set by the NATS servers (sync_interval) and the streams' replicas", "replicas", cfg.Streams.Replicas)
		}
		return
	}
	warnings := streamWarnings(ctx, js)
	if cfg.NATSURL == "" {
		warnings = append(warnings, "production profile on the embedded server: one server, nothing replicated; run a 3-node cluster and use -nats-url")
		if !s.sync.Always {
			warnings = append(warnings, fmt.Sprintf("the embedded server fsyncs every %v, not after every write; %s", s.sync, syncAdvice(cfg)))
		}
	} else {
		warnings = append(warnings, serverWarnings(ctx, cfg.Monitor)...)
		warnings = append(warnings, exposureWarnings(cfg.Security.Client, s.nc.Load())...)
	}
	for _, w := range warnings {
		s.log.Warn("production: " + w)
	}
	if len(warnings) == 0 {
		s.log.Info("production: every stream has 3 replicas or more, every server fsyncs after each write, and guard-consumer connects with credentials over TLS")
	}
}

// syncAdvice says how to make the embedded server fsync every write.
func syncAdvice(cfg Config) string {
	if cfg.Embedded.ConfigFile != "" {
		return "set sync_interval: always in the jetstream block of " + cfg.Embedded.ConfigFile + " (a value there wins over -sync)"
	}
	return "use -sync always"
}

// ours reports whether a stream is one of guardstream's.
func ours(name string) bool {
	switch name {
	case streams.EventStream, streams.TimerStream, streams.ControlStream, streams.DeadLetterStream,
		"KV_" + streams.RunsBucket, objectstore.Stream:
		return true
	}
	return strings.HasPrefix(name, "KV_guard_")
}

// streamWarnings names guardstream's streams that one server's loss would
// lose or stop.
func streamWarnings(ctx context.Context, js jetstream.JetStream) []string {
	var warnings []string
	list := js.ListStreams(ctx)
	for info := range list.Info() {
		c := info.Config
		if !ours(c.Name) {
			continue
		}
		if c.Replicas < ProductionReplicas {
			warnings = append(warnings, fmt.Sprintf("stream %s has %d replica(s), want %d: losing one server loses or stops it (-replicas %d on a 3-node cluster)",
				c.Name, c.Replicas, ProductionReplicas, ProductionReplicas))
		}
		if c.Storage == jetstream.MemoryStorage {
			warnings = append(warnings, fmt.Sprintf("stream %s is kept in memory: a restart of its servers loses it", c.Name))
		}
	}
	if err := list.Err(); err != nil {
		warnings = append(warnings, fmt.Sprintf("cannot list the streams to check their replicas: %v", err))
	}
	return warnings
}

// serverWarnings names the servers that do not fsync every write, read
// from their monitoring endpoints.
func serverWarnings(ctx context.Context, monitors []string) []string {
	if len(monitors) == 0 {
		return []string{"cannot tell whether the NATS servers fsync every write: they show sync_interval only on their monitoring port and to the system account; give -nats-monitor http://<server>:8222,... (set sync_interval: always in their config)"}
	}
	var warnings []string
	client := &http.Client{Timeout: 5 * time.Second}
	for _, url := range monitors {
		v, err := varz(ctx, client, url)
		switch {
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("cannot read the sync setting of %s: %v", url, err))
		case v.JetStream.Config == nil:
			warnings = append(warnings, fmt.Sprintf("NATS server %s (%s) has JetStream off", v.Name, url))
		case !v.JetStream.Config.SyncAlways:
			warnings = append(warnings, fmt.Sprintf("NATS server %s (%s) fsyncs every %v, not after every write: a power loss can lose acknowledged events; set sync_interval: always",
				v.Name, url, v.JetStream.Config.SyncInterval))
		}
	}
	return warnings
}

// varz reads a server's /varz.
func varz(ctx context.Context, client *http.Client, base string) (*server.Varz, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/varz", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /varz: %s", resp.Status)
	}
	var v server.Varz
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return nil, fmt.Errorf("GET /varz: %w", err)
	}
	return &v, nil
}
