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
	sc := c.StreamConfig()
	if sc.Name != objectstore.Stream || sc.Storage != jetstream.MemoryStorage || sc.Replicas != 3 || sc.MaxAge != time.Hour ||
		sc.MaxMsgsPerSubject != 1 || sc.AllowRollup || sc.AllowMsgSchedules || sc.AllowMsgTTL ||
		sc.MaxBytes != 1<<30 || sc.Discard != jetstream.DiscardOld {
		t.Errorf("stream config %+v", sc)
	}
	bad := map[string]func(*objectstore.Config){
		"replicas":                     func(c *objectstore.Config) { c.Replicas = 2 },
		"max age":                      func(c *objectstore.Config) { c.MaxAge = 0 },
		"stream cap":                   func(c *objectstore.Config) { c.MaxBytes = -1 },
		"no cap":                       func(c *objectstore.Config) { c.MaxBytes = 0 },
		"cap below the largest output": func(c *objectstore.Config) { c.MaxBytes = c.MaxOutputBytes - 1 },
		"output cap":                   func(c *objectstore.Config) { c.MaxOutputBytes = 0 },
		"chunk":                        func(c *objectstore.Config) { c.ChunkSize = objectstore.MaxChunkSize + 1 },
	}
	for name, mod := range bad {
		c := objectstore.DefaultConfig()
		mod(&c)
		if c.Validate() == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}
