package schema

import (
	"cmp"
	"slices"

	"github.com/guardstream/guardstream/event"
)

// State is the guard's state for one run: what the run declared at its
// start, its agent class, and two counts. It is bounded by the declaration
// (at most event.MaxDeclared tools and documents), never by the length of
// the run. Compiled schemas are not state: the Guard memoizes them.
type State struct {
	Agent string         `msgpack:"agent,omitempty"` // the run's agent class
	Tools []event.Schema `msgpack:"tools,omitempty"` // tools the run declared, sorted by name
	Docs  []event.Schema `msgpack:"docs,omitempty"`  // document schemas the run declared, sorted by name

	InvalidCalls int `msgpack:"badc,omitempty"` // invalid calls in a row
	InvalidDocs  int `msgpack:"badd,omitempty"` // invalid documents in a row
}

// declare returns the schemas sorted by name, a later one of a name
// replacing an earlier one, in a new slice; nil if there are none.
func declare(schemas []event.Schema) []event.Schema {
	if len(schemas) == 0 {
		return nil
	}
	out := make([]event.Schema, 0, len(schemas))
	seen := make(map[string]bool, len(schemas))
	for i := len(schemas) - 1; i >= 0; i-- {
		if s := schemas[i]; !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b event.Schema) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
