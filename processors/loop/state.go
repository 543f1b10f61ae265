package loop

import (
	"fmt"
	"slices"
)

// State is the guard's state for one run. It is bounded: per rule a window
// of at most MaxWindow item keys, MaxKeys counts and MaxRefused refusals;
// at most MaxPending calls awaiting results; never a history.
type State struct {
	Rules   []RuleState `msgpack:"rules,omitempty"` // one per rule, in policy order
	Round   Round       `msgpack:"rnd"`             // the open tool round
	Rounds  int64       `msgpack:"rno,omitempty"`   // tool rounds opened, numbering them
	Turn    int64       `msgpack:"turn,omitempty"`  // the current user turn
	Pending []Pending   `msgpack:"pend,omitempty"`  // calls of the round awaiting results, oldest first
	// Declared is the number of tools the run declared; Seen the tools it
	// called, as many as the highest MinTools: what MinTools is judged by.
	Declared int      `msgpack:"decl,omitempty"`
	Seen     []uint64 `msgpack:"seen,omitempty"`
	// Shells are the declared tools that run shell commands though the
	// vocabulary does not name them (workspace.Shells.Declared).
	Shells []string `msgpack:"sh,omitempty"`
}

// Round tallies the open tool round.
type Round struct {
	Calls   int `msgpack:"c,omitempty"` // calls issued
	Results int `msgpack:"r,omitempty"` // results received
	Errors  int `msgpack:"e,omitempty"` // results that were errors
}

// Pending is a call awaiting its result: the parts of its identity.
type Pending struct {
	Call string `msgpack:"c"`
	Tool string `msgpack:"t,omitempty"`
	// Args is the hash of the arguments with the loop's ignore_args left
	// out, More under the rules' own lists, in the detector's order.
	Args uint64   `msgpack:"a,omitempty"`
	More ArgsMore `msgpack:"am,omitempty"`
	Path uint64   `msgpack:"p,omitempty"`
	// Exit is what the call's command is (an exitcode.Kind), for reading
	// its exit status; 0 for a call that runs no command.
	Exit uint8 `msgpack:"x,omitempty"`
}

// ArgsMore holds the hashes of a call's arguments under the rules' own
// lists of ignored keys. It is left out of a snapshot when no rule has
// one.
type ArgsMore [MaxArgSets - 1]uint64

// IsZero reports whether m holds no hash.
func (m ArgsMore) IsZero() bool { return m == ArgsMore{} }

// RuleState is what one rule keeps.
type RuleState struct {
	// Win holds item keys, oldest first, 0 marking an item the rule does
	// not count: a consecutive window the last MaxCycle items since the
	// streak broke, a sliding window the last Size items.
	Win []uint64 `msgpack:"w,omitempty"`
	// Calls holds, beside a results rule's consecutive window, the keys of
	// the items' calls, so a refusal can name every call of a cycle.
	Calls []uint64 `msgpack:"cw,omitempty"`
	// Tails holds, for each period p of a consecutive window, the length
	// of the trailing run of items that repeats with period p.
	Tails []int `msgpack:"l,omitempty"`
	// Last is the key of the last item of a window that is not
	// consecutive (a consecutive one's is in Win), N the count after it, T
	// the items a consecutive count of cycles spans, U the round or turn
	// it came in.
	Last uint64 `msgpack:"k1,omitempty"`
	N    int    `msgpack:"n,omitempty"`
	T    int    `msgpack:"t,omitempty"`
	U    int64  `msgpack:"u,omitempty"`
	// Keys and Other count a run window's items by key, at most MaxKeys
	// keys, the rest together.
	Keys  []KeyCount `msgpack:"k,omitempty"`
	Other int        `msgpack:"o,omitempty"`
	// Full is the full signature of the last call and Varied whether it
	// changed within the streak, for rules that need it to vary.
	Full   uint64 `msgpack:"f,omitempty"`
	Varied bool   `msgpack:"v,omitempty"`
	// Result is the last result of the streak's call, for progress.
	Result    uint64 `msgpack:"r,omitempty"`
	HasResult bool   `msgpack:"hr,omitempty"`
	// Acc and AccN sum the identities of the open round's calls.
	Acc  uint64 `msgpack:"a,omitempty"`
	AccN int    `msgpack:"an,omitempty"`
	// Inject is the count at which an inject_steer step refused this
	// streak's call; a higher count stops the run. 0: none.
	Inject int `msgpack:"inj,omitempty"`
	// Rearm makes the next item's count a crossing of every step.
	Rearm bool `msgpack:"re,omitempty"`
	// Refused lists refused signatures and tools (tool keys are tagged).
	Refused []uint64 `msgpack:"ref,omitempty"`
}

// KeyCount is how many items of one key a run window saw.
type KeyCount struct {
	Key uint64 `msgpack:"k"`
	N   int    `msgpack:"n"`
}

// reset clears everything the rule counted and refused. The backing
// arrays are kept, so a reset does not make the next item allocate.
func (s *RuleState) reset() {
	*s = RuleState{Win: s.Win[:0], Calls: s.Calls[:0], Tails: s.Tails[:0], Keys: s.Keys[:0], Refused: s.Refused[:0], Acc: s.Acc, AccN: s.AccN}
}

// brk ends a consecutive streak: an item the rule does not count.
func (s *RuleState) brk() {
	s.Win, s.Calls, s.Last, s.N, s.T, s.Inject, s.HasResult, s.Varied = s.Win[:0], s.Calls[:0], 0, 0, 0, 0, false, false
	clear(s.Tails)
}

// consecutive adds key to a consecutive window finding patterns of period
// minC to maxC and returns the repetitions of the longest-repeated
// primitive pattern, its period, and the items its repetitions span.
//
// Tails[p-1] is the length of the longest run of items ending here in
// which every item equals the one p before it; a new item extends it when
// it equals the item p back (or the run is shorter than p), and otherwise
// the run restarts at p items.
func (s *RuleState) consecutive(key uint64, minC, maxC int) (reps, period, items int) {
	for len(s.Tails) < maxC {
		s.Tails = append(s.Tails, 0)
	}
	w := s.Win
	for p := 1; p <= maxC; p++ {
		l := s.Tails[p-1]
		if l >= p && (len(w) < p || w[len(w)-p] != key) {
			l = p - 1
		}
		s.Tails[p-1] = l + 1
	}
	s.Win = push(w, key, maxC)
	for p := minC; p <= maxC; p++ {
		if l := s.Tails[p-1]; l >= p && l/p > reps && primitive(s.Win[len(s.Win)-p:]) {
			reps, period, items = l/p, p, l
		}
	}
	return reps, period, items
}

// primitive reports whether block is not a repetition of a shorter block.
func primitive(block []uint64) bool {
	p := len(block)
outer:
	for q := 1; q < p; q++ {
		if p%q != 0 {
			continue
		}
		for i := q; i < p; i++ {
			if block[i] != block[i-q] {
				continue outer
			}
		}
		return false
	}
	return true
}

// last returns the key of the last item.
func (s *RuleState) last() uint64 {
	if len(s.Win) > 0 && s.Last == 0 {
		return s.Win[len(s.Win)-1]
	}
	return s.Last
}

// pushCall keeps the call of the item just added to a consecutive window
// of max items.
func (s *RuleState) pushCall(call uint64, max int) { s.Calls = push(s.Calls, call, max) }

// cycleCalls returns the calls of the last period items: what a refusal
// of a cycle covers.
func (s *RuleState) cycleCalls(period int) []uint64 {
	w := s.Win
	if len(s.Calls) > 0 {
		w = s.Calls
	}
	return w[max(len(w)-period, 0):]
}

// sliding adds key (0: an item not counted) to a window of the last size
// items and returns how many of them equal key.
func (s *RuleState) sliding(key uint64, size int) int {
	s.Win = push(s.Win, key, size)
	if key == 0 {
		return 0
	}
	n := 0
	for _, k := range s.Win {
		if k == key {
			n++
		}
	}
	return n
}

// run counts key in the run and returns its count. Keys beyond MaxKeys
// share one count, which can only make a count come early.
func (s *RuleState) run(key uint64) int {
	i, found := slices.BinarySearchFunc(s.Keys, key, func(c KeyCount, k uint64) int {
		switch {
		case c.Key < k:
			return -1
		case c.Key > k:
			return 1
		}
		return 0
	})
	switch {
	case found:
		s.Keys[i].N++
		return s.Keys[i].N
	case len(s.Keys) < MaxKeys:
		s.Keys = slices.Insert(s.Keys, i, KeyCount{Key: key, N: 1})
		return 1
	}
	s.Other++
	return s.Other
}

// refuse adds key to the refusals, forgetting the oldest past MaxRefused.
func (s *RuleState) refuse(key uint64) {
	if !slices.Contains(s.Refused, key) {
		s.Refused = push(s.Refused, key, MaxRefused)
	}
}

func (s *State) addPending(p Pending) { s.Pending = push(s.Pending, p, MaxPending) }

// push appends v to s, dropping the oldest element to keep at most n. The
// backing array is reused, so a full window does not allocate.
func push[T any](s []T, v T, n int) []T {
	if len(s) >= n {
		copy(s, s[len(s)-n+1:])
		s = s[:n-1]
	}
	return append(s, v)
}

// takePending removes the pending call and returns it.
func (s *State) takePending(call string) (Pending, bool) {
	for i, p := range s.Pending {
		if p.Call == call {
			s.Pending = append(s.Pending[:i], s.Pending[i+1:]...)
			return p, true
		}
	}
	return Pending{}, false
}

// see remembers a tool the run called, up to limit tools: more than the
// highest MinTools would tell nothing.
func (s *State) see(tool uint64, limit int) {
	if len(s.Seen) < limit && !slices.Contains(s.Seen, tool) {
		s.Seen = append(s.Seen, tool)
	}
}

// tools returns how many tools the run has, for MinTools.
func (s *State) tools() int {
	if s.Declared > 0 {
		return s.Declared
	}
	return len(s.Seen)
}

// rule returns the state of the i-th rule, growing the list to fit: a
// snapshot taken under a policy with fewer rules gets fresh states.
func (s *State) rule(i int) *RuleState {
	for len(s.Rules) <= i {
		s.Rules = append(s.Rules, RuleState{})
	}
	return &s.Rules[i]
}

// SigString formats a signature as wire constraints carry it: 16
// lower-case hex digits.
func SigString(sig uint64) string { return fmt.Sprintf("%016x", sig) }
