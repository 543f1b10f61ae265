package metrics

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// children caches the counters of one vector by key. A lookup reads an
// immutable map through an atomic pointer: no lock and no allocation. A key
// seen for the first time creates its child under a lock and publishes a
// copy of the map. Keys come from closed sets, so the map stays small.
type children[K comparable] struct {
	mu     sync.Mutex
	m      atomic.Pointer[map[K]prometheus.Counter]
	create func(K) prometheus.Counter
}

func newChildren[K comparable](create func(K) prometheus.Counter) *children[K] {
	c := &children[K]{create: create}
	c.m.Store(&map[K]prometheus.Counter{})
	return c
}

// get returns k's counter, creating it the first time.
func (c *children[K]) get(k K) prometheus.Counter {
	if ctr, ok := (*c.m.Load())[k]; ok {
		return ctr
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.m.Load()
	if ctr, ok := old[k]; ok {
		return ctr
	}
	m := maps.Clone(old)
	ctr := c.create(k)
	m[k] = ctr
	c.m.Store(&m)
	return ctr
}
