package objectstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Stream is the name of the JetStream stream that holds full outputs.
const Stream = "GUARD_OUTPUTS"

// Config sizes the GUARD_OUTPUTS stream and the Store over it.
type Config struct {
	// Replicas is the replication factor: 1 on a single server, 3 on a
	// cluster.
	Replicas int `json:"replicas"`
	// Memory keeps outputs in memory instead of on disk (tests, demos).
	Memory bool `json:"memory"`
	// MaxAge is how long an output is kept after it was written; see the
	// package documentation for how Put refreshes outputs it holds
	// already.
	MaxAge time.Duration `json:"max_age"`
	// MaxBytes caps the stream's size. When it is full, the oldest parts
	// go, whichever tenant stored them: writes never fail for want of
	// space, and an output that lost a part reads as not found until it
	// is put again (decision 23).
	MaxBytes int64 `json:"max_bytes"`
	// MaxOutputBytes is the largest output Put stores and Get reads, which
	// bounds the memory one output takes.
	MaxOutputBytes int64 `json:"max_output_bytes"`
	// ChunkSize is the size of the messages an output is stored in.
	ChunkSize int `json:"chunk_size"`
	// Compression compresses the stream's storage (S2).
	Compression bool `json:"compression,omitempty"`
}

// DefaultConfig returns the configuration of a single-server deployment:
// one replica on disk, outputs kept a day and 1 GiB at most, outputs of up
// to 64 MiB in chunks of 128 KiB.
func DefaultConfig() Config {
	return Config{
		Replicas:       1,
		MaxAge:         24 * time.Hour,
		MaxBytes:       1 << 30,
		MaxOutputBytes: 64 << 20,
		ChunkSize:      128 << 10,
	}
}

// MinChunkSize and MaxChunkSize bound ChunkSize: the largest stays below
// the server's default payload limit of 1 MiB, and the smallest bounds how
// many parts a reader fetches for one output, whoever stored it (1,024 for
// the default 64 MiB outputs).
const (
	MinChunkSize = 64 << 10
	MaxChunkSize = 1<<20 - 4<<10
)

// Validate reports every setting that is out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5 {
		errs = append(errs, fmt.Errorf("objectstore.replicas is %d; want 1, 3 or 5", c.Replicas))
	}
	if c.MaxAge <= 0 {
		errs = append(errs, fmt.Errorf("objectstore.max_age is %v; want a positive duration", c.MaxAge))
	}
	if c.MaxOutputBytes <= 0 {
		errs = append(errs, fmt.Errorf("objectstore.max_output_bytes is %d; want a positive size", c.MaxOutputBytes))
	} else if c.MaxBytes < c.MaxOutputBytes {
		errs = append(errs, fmt.Errorf("objectstore.max_bytes is %d bytes, less than one output of max_output_bytes (%d); "+
			"raise it (sized to the disk: docs/operations.md, Sizing) or lower max_output_bytes", c.MaxBytes, c.MaxOutputBytes))
	}
	if c.ChunkSize < MinChunkSize || c.ChunkSize > MaxChunkSize {
		errs = append(errs, fmt.Errorf("objectstore.chunk_size is %d; want %d to %d", c.ChunkSize, MinChunkSize, MaxChunkSize))
	}
	return errors.Join(errs...)
}

// StreamConfig returns the configuration of the GUARD_OUTPUTS stream. Agents
// publish into it, so, like AGENT_EVENTS, it enables no feature a message
// header turns on; a part replaces the one before it on its subject
// through the per-subject limit instead of a rollup. It discards old: with
// DiscardNew one tenant filling it would make every tenant's uploads, and
// so their results, fail until outputs expired.
func (c Config) StreamConfig() jetstream.StreamConfig {
	sc := jetstream.StreamConfig{
		Name:              Stream,
		Description:       "guardstream: full tool outputs, per tenant, named by their sha256 digest",
		Subjects:          []string{subjectPrefix + "*.*.*"},
		Retention:         jetstream.LimitsPolicy,
		MaxAge:            c.MaxAge,
		MaxBytes:          c.MaxBytes,
		MaxMsgsPerSubject: 1,
		Discard:           jetstream.DiscardOld,
		Storage:           jetstream.FileStorage,
		Replicas:          c.Replicas,
		AllowDirect:       true,
		// Parts carry no Nats-Msg-Id; the window only has to be short.
		Duplicates: min(c.MaxAge, time.Minute),
	}
	if c.Memory {
		sc.Storage = jetstream.MemoryStorage
	}
	if c.Compression {
		sc.Compression = jetstream.S2Compression
	}
	return sc
}
