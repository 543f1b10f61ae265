package objectstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Bucket is the name of the object store bucket that holds full outputs.
const Bucket = "guard_outputs"

// Config sizes the guard_outputs bucket and the Store over it.
type Config struct {
	// Replicas is the replication factor: 1 on a single server, 3 on a
	// cluster.
	Replicas int `json:"replicas"`
	// Memory keeps outputs in memory instead of on disk (tests, demos).
	Memory bool `json:"memory"`
	// MaxAge is how long an output or a link is kept after it was
	// written; see the package documentation for how Put refreshes
	// outputs it holds already.
	MaxAge time.Duration `json:"max_age"`
	// MaxBucketBytes caps the bucket's size; 0 means no cap. When the
	// bucket is full, Put fails until old outputs expire.
	MaxBucketBytes int64 `json:"max_bucket_bytes,omitempty"`
	// MaxOutputBytes is the largest output Put stores and Get reads, which
	// bounds the memory one output takes.
	MaxOutputBytes int64 `json:"max_output_bytes"`
	// ChunkSize is the size of the messages an output is stored in.
	ChunkSize int `json:"chunk_size"`
	// Compression compresses the bucket's storage (S2).
	Compression bool `json:"compression,omitempty"`
}

// DefaultConfig returns the configuration of a single-server deployment:
// one replica on disk, outputs kept a day, outputs of up to 64 MiB in
// chunks of 128 KiB.
func DefaultConfig() Config {
	return Config{
		Replicas:       1,
		MaxAge:         24 * time.Hour,
		MaxOutputBytes: 64 << 20,
		ChunkSize:      128 << 10,
	}
}

// MaxChunkSize is the largest ChunkSize accepted: below the server's
// default payload limit of 1 MiB.
const MaxChunkSize = 1<<20 - 4<<10

// Validate reports every setting that is out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5 {
		errs = append(errs, fmt.Errorf("objectstore.replicas is %d; want 1, 3 or 5", c.Replicas))
	}
	if c.MaxAge <= 0 {
		errs = append(errs, fmt.Errorf("objectstore.max_age is %v; want a positive duration", c.MaxAge))
	}
	if c.MaxBucketBytes < 0 {
		errs = append(errs, fmt.Errorf("objectstore.max_bucket_bytes is %d; want 0 (no cap) or more", c.MaxBucketBytes))
	}
	if c.MaxOutputBytes <= 0 {
		errs = append(errs, fmt.Errorf("objectstore.max_output_bytes is %d; want a positive size", c.MaxOutputBytes))
	}
	if c.ChunkSize < 1<<10 || c.ChunkSize > MaxChunkSize {
		errs = append(errs, fmt.Errorf("objectstore.chunk_size is %d; want 1024 to %d", c.ChunkSize, MaxChunkSize))
	}
	return errors.Join(errs...)
}

// BucketConfig returns the configuration of the guard_outputs bucket.
func (c Config) BucketConfig() jetstream.ObjectStoreConfig {
	storage := jetstream.FileStorage
	if c.Memory {
		storage = jetstream.MemoryStorage
	}
	return jetstream.ObjectStoreConfig{
		Bucket:      Bucket,
		Description: "guardstream: full tool outputs, named by their sha256 digest, and links from runs' calls to them",
		TTL:         c.MaxAge,
		MaxBytes:    c.MaxBucketBytes,
		Storage:     storage,
		Replicas:    c.Replicas,
		Compression: c.Compression,
	}
}
