package budget

import (
	"slices"
	"strings"
)

// State is the guard's state for one run. It is bounded: counts, at most
// MaxTools per-tool counts, and at most MaxQueue call ids in flight and
// MaxQueue deferred.
type State struct {
	Turn    int64 `msgpack:"turn,omitempty"`   // the highest turn a step reported
	Turns   int64 `msgpack:"turns,omitempty"`  // turns opened
	Rounds  int64 `msgpack:"rounds,omitempty"` // tool rounds opened in the current turn
	InRound bool  `msgpack:"inr,omitempty"`    // a call came since the last step: its round is open
	Steps   int64 `msgpack:"steps,omitempty"`  // steps of the run
	Calls   int64 `msgpack:"calls,omitempty"`  // calls since the last step
	Tokens  int64 `msgpack:"tok,omitempty"`    // prompt and completion tokens of the run's steps
	Cost    int64 `msgpack:"cost,omitempty"`   // cost of the run's steps, in micro-units

	// Tools counts the calls of each tool with a budget, sorted by tool.
	Tools []ToolCount `msgpack:"tools,omitempty"`
	// Other counts the calls of tools with a budget that came after Tools
	// was full.
	Other int64 `msgpack:"other,omitempty"`

	InFlight []string `msgpack:"fly,omitempty"` // calls let through without a result, oldest first
	Deferred []string `msgpack:"def,omitempty"` // deferred calls, oldest first
}

// ToolCount is the number of calls of one tool.
type ToolCount struct {
	Tool string `msgpack:"t"`
	N    int64  `msgpack:"n"`
}

// toolCalls returns the calls of tool so far, and where they are kept: an
// index into Tools, len(Tools) with found false if the tool is not there
// yet but fits, or -1 if its calls go to Other.
func (s *State) toolCalls(tool string) (n int64, i int, found bool) {
	i, found = slices.BinarySearchFunc(s.Tools, tool, func(c ToolCount, t string) int {
		return strings.Compare(c.Tool, t)
	})
	switch {
	case found:
		return s.Tools[i].N, i, true
	case len(s.Tools) < MaxTools:
		return 0, i, false
	}
	return s.Other, -1, false
}

// countTool records a call of tool, at i as toolCalls returned it.
func (s *State) countTool(tool string, i int, found bool) {
	switch {
	case found:
		s.Tools[i].N++
	case i < 0:
		s.Other++
	default:
		s.Tools = slices.Insert(s.Tools, i, ToolCount{Tool: tool, N: 1})
	}
}

// land removes call from the calls in flight and reports whether it was
// there.
func (s *State) land(call string) bool {
	i := slices.Index(s.InFlight, call)
	if i < 0 {
		return false
	}
	s.InFlight = slices.Delete(s.InFlight, i, i+1)
	return true
}

// dequeue removes and returns the oldest deferred call. The queue's
// backing array is kept, so a run in steady state does not allocate.
func (s *State) dequeue() string {
	call := s.Deferred[0]
	n := copy(s.Deferred, s.Deferred[1:])
	s.Deferred[n] = ""
	s.Deferred = s.Deferred[:n]
	return call
}

// addSat returns a+b, or the largest int64 if that overflows; b is clamped
// at 0, so a count never goes down.
func addSat(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	if a > maxInt64-b {
		return maxInt64
	}
	return a + b
}

const maxInt64 = 1<<63 - 1
