package policy

import "slices"

// State is the policy guard's state for one run. It is bounded: the
// run's pattern and workspace, change totals, and at most MaxPaths changed
// paths, kept sorted so that equal runs encode to equal bytes.
type State struct {
	Started   bool   `msgpack:"start,omitempty"` // the run start was seen
	Pattern   string `msgpack:"pat,omitempty"`   // the run's pattern id; "" for none
	Workspace string `msgpack:"ws,omitempty"`    // the run's workspace root
	// Shells are the run's declared tools that run shell commands by
	// their declared kind or the shape of their schema (see
	// workspace.Shells.Declared).
	Shells []string `msgpack:"sh,omitempty"`
	// Writers are the run's tools declared of kind edit that the
	// vocabulary's write tools do not name (workspace.DeclaredWriters).
	Writers []string `msgpack:"wt,omitempty"`

	Lines    int64    `msgpack:"ln,omitempty"`    // changed lines reported
	Hunks    int64    `msgpack:"hk,omitempty"`    // changed hunks reported
	Unlisted int64    `msgpack:"ul,omitempty"`    // changed files of results that listed no paths
	Overflow int64    `msgpack:"of,omitempty"`    // changed paths beyond MaxPaths, counted without de-duplication
	Paths    []string `msgpack:"paths,omitempty"` // distinct changed paths, sorted

	// Test files the run created (its scratch scripts and new tests), and
	// those it changed in place, at most MaxTestFiles each, oldest first.
	Scratch []string `msgpack:"scratch,omitempty"`
	Edited  []string `msgpack:"edited,omitempty"`
}

// MaxTestFiles bounds the test files a run's state remembers as created
// or edited; the oldest is forgotten first.
const MaxTestFiles = 64

// remember adds p to list, unless it is there, forgetting the oldest entry
// past MaxTestFiles.
func remember(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	if len(list) == MaxTestFiles {
		copy(list, list[1:])
		list = list[:MaxTestFiles-1]
	}
	return append(list, p)
}

// Files returns the number of changed files so far.
func (s *State) Files() int64 { return satAdd(satAdd(int64(len(s.Paths)), s.Unlisted), s.Overflow) }

// addPath counts p as changed.
func (s *State) addPath(p string) {
	i, found := slices.BinarySearch(s.Paths, p)
	switch {
	case found:
	case len(s.Paths) < MaxPaths:
		s.Paths = slices.Insert(s.Paths, i, p)
	default:
		s.Overflow = satAdd(s.Overflow, 1)
	}
}

// satAdd adds two non-negative counts without overflowing.
func satAdd(a, b int64) int64 {
	if b > 0 && a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}
