package objectstore_test

import (
	"testing"
	"time"

	"github.com/guardstream/guardstream/objectstore"
	"github.com/nats-io/nats.go/jetstream"
)

func TestConfig(t *testing.T) {
	c := objectstore.DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	c.Memory, c.Replicas, c.MaxAge = true, 3, time.Hour
	bc := c.BucketConfig()
	if bc.Bucket != objectstore.Bucket || bc.Storage != jetstream.MemoryStorage || bc.Replicas != 3 || bc.TTL != time.Hour {
		t.Errorf("bucket config %+v", bc)
	}
	bad := map[string]func(*objectstore.Config){
		"replicas":   func(c *objectstore.Config) { c.Replicas = 2 },
		"max age":    func(c *objectstore.Config) { c.MaxAge = 0 },
		"bucket cap": func(c *objectstore.Config) { c.MaxBucketBytes = -1 },
		"output cap": func(c *objectstore.Config) { c.MaxOutputBytes = 0 },
		"chunk":      func(c *objectstore.Config) { c.ChunkSize = objectstore.MaxChunkSize + 1 },
	}
	for name, mod := range bad {
		c := objectstore.DefaultConfig()
		mod(&c)
		if c.Validate() == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}
