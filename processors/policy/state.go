package policy

import "slices"

// State is the policy guard's state for one run. It is bounded: the
// run's pattern and workspace, change totals, and at most MaxPaths changed
// paths, kept sorted so that equal runs encode to equal bytes.
type State struct {
	Started   bool   `msgpack:"start,omitempty"` // the run start was seen
	Pattern   string `msgpack:"pat,omitempty"`   // the run's pattern id; "" for none
	Workspace string `msgpack:"ws,omitempty"`    // the run's workspace root

	Lines    int64    `msgpack:"ln,omitempty"`    // changed lines reported
	Hunks    int64    `msgpack:"hk,omitempty"`    // changed hunks reported
	Unlisted int64    `msgpack:"ul,omitempty"`    // changed files of results that listed no paths
	Overflow int64    `msgpack:"of,omitempty"`    // changed paths beyond MaxPaths, counted without de-duplication
	Paths    []string `msgpack:"paths,omitempty"` // distinct changed paths, sorted
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
