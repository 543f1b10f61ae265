package objectstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// subjectPrefix starts every subject of GUARD_OUTPUTS:
// guard.out.<tenant>.<hex>.<part>.
const subjectPrefix = "guard.out."

// Headers of an output's first part.
const (
	// HeaderSize is the output's length in bytes.
	HeaderSize = "Guard-Size"
	// HeaderParts is the number of parts the output is stored in.
	HeaderParts = "Guard-Parts"
)

// Subject returns the subject of part i of the output named digest that
// tenant stored. Every subject of a tenant starts with Filter(tenant).
func Subject(tenant, digest string, part int) (string, error) {
	if err := event.CheckID(tenant); err != nil {
		return "", fmt.Errorf("objectstore: tenant id %q: %w", tenant, err)
	}
	hexits, ok := digestHex(digest)
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrInvalidDigest, digest)
	}
	return subjectPrefix + tenant + "." + hexits + "." + strconv.Itoa(part), nil
}

// Filter returns the filter matching every subject of tenant's outputs:
// what an agent of the tenant may publish on to store outputs.
func Filter(tenant string) string { return subjectPrefix + tenant + ".*.*" }

// Messages returns the messages that store data for tenant, to publish in
// this order, each awaiting its ack, as Upload does: the parts from the last
// to the first, so a reader that finds the first part finds the rest. The
// first part carries the output's size and part count. An output of one
// chunk or less is one message.
//
// Writing the same output again needs no lookup first: each part replaces
// the one on its subject. Writers should still not rewrite what they wrote
// recently.
func (s *Store) Messages(tenant string, data []byte) ([]*nats.Msg, event.OutputRef, error) {
	return parts(tenant, data, s.cfg)
}

func parts(tenant string, data []byte, cfg Config) ([]*nats.Msg, event.OutputRef, error) {
	sum := sha256.Sum256(data)
	ref := event.OutputRef{Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
	if ref.Size > cfg.MaxOutputBytes {
		return nil, ref, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, ref.Size, cfg.MaxOutputBytes)
	}
	n := max(1, (len(data)+cfg.ChunkSize-1)/cfg.ChunkSize)
	msgs := make([]*nats.Msg, n)
	for i := range n {
		subj, err := Subject(tenant, ref.Digest, i)
		if err != nil {
			return nil, ref, err
		}
		m := nats.NewMsg(subj)
		m.Data = data[min(i*cfg.ChunkSize, len(data)):min((i+1)*cfg.ChunkSize, len(data))]
		msgs[n-1-i] = m
	}
	first := msgs[n-1]
	first.Header.Set(HeaderSize, strconv.FormatInt(ref.Size, 10))
	first.Header.Set(HeaderParts, strconv.Itoa(n))
	return msgs, ref, nil
}

// Publisher publishes a message to JetStream and waits for its ack;
// jetstream.JetStream is one.
type Publisher interface {
	PublishMsg(ctx context.Context, m *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error)
}

// Upload stores data for tenant, as cfg sizes it, and returns its
// reference. It only publishes, on Filter(tenant): that is all an agent
// needs, and may, do to send an output by reference.
func Upload(ctx context.Context, p Publisher, tenant string, data []byte, cfg Config) (event.OutputRef, error) {
	msgs, ref, err := parts(tenant, data, cfg)
	if err != nil {
		return ref, err
	}
	for _, m := range msgs {
		if _, err := p.PublishMsg(ctx, m); err != nil {
			return ref, fmt.Errorf("objectstore: storing %s (%d bytes) on %s: %w", ref.Digest, ref.Size, m.Subject, err)
		}
	}
	return ref, nil
}
