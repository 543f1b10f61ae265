package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors/schema/repair"
)

// registry is a Registry with its schemas compiled: what the policy
// registers for one agent class.
type registry struct {
	tools, docs catalog
}

// catalog is one kind of registered schema, tools or documents.
type catalog struct {
	schemas map[string]*repair.Schema
	names   []string // sorted
}

func compileCatalog(layers ...map[string]json.RawMessage) catalog {
	c := catalog{schemas: map[string]*repair.Schema{}}
	for _, layer := range layers { // later layers override earlier ones
		for name, text := range layer {
			c.schemas[name] = repair.Compile(string(text))
		}
	}
	c.names = sortedNames(c.schemas)
	return c
}

// lookup finds name among what the run declared, then in the catalog.
func (c *catalog) lookup(declared []event.Schema, name string, m *memo) (*repair.Schema, bool) {
	if i, ok := slices.BinarySearchFunc(declared, name, func(s event.Schema, name string) int {
		return strings.Compare(s.Name, name)
	}); ok {
		return m.compile(declared[i].Schema), true
	}
	s, ok := c.schemas[name]
	return s, ok
}

// empty reports whether nothing is registered, by the policy or the run.
func (c *catalog) empty(declared []event.Schema) bool {
	return len(declared) == 0 && len(c.names) == 0
}

// allNames returns every name registered for the run, sorted.
func (c *catalog) allNames(declared []event.Schema) []string {
	names := slices.Clone(c.names)
	for _, s := range declared {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Bounds of the memo of compiled schemas.
const (
	memoEntries = 4096
	memoBytes   = 32 << 20 // of schema text
)

// memo remembers compiled schemas by their text, which is the whole key:
// a hash would let a schema crafted to collide stand in for another run's.
// It is pure memoization (compiling the same text again gives the same
// schema), so what it holds never changes a decision. It keeps two
// generations: when the current one is full it becomes the old one, and
// entries used from the old one move back, so the schemas in use stay and
// the memory is bounded.
type memo struct {
	mu       sync.Mutex
	cur, old map[string]*repair.Schema
	bytes    int
}

func (m *memo) compile(text string) *repair.Schema {
	m.mu.Lock()
	s, ok := m.cur[text]
	if !ok {
		if s, ok = m.old[text]; ok {
			m.put(text, s)
		}
	}
	m.mu.Unlock()
	if ok {
		return s
	}
	s = repair.Compile(text) // outside the lock: compiling can take a while
	m.mu.Lock()
	m.put(text, s)
	m.mu.Unlock()
	return s
}

func (m *memo) put(text string, s *repair.Schema) {
	if m.cur == nil || len(m.cur) >= memoEntries || m.bytes+len(text) > memoBytes {
		m.old, m.cur, m.bytes = m.cur, make(map[string]*repair.Schema), 0
	}
	m.cur[text] = s
	m.bytes += len(text)
}
