package loop

import (
	"encoding/json"
	"testing"

	"github.com/guardstream/guardstream/event"
)

func TestConsecutivePatterns(t *testing.T) {
	tests := []struct {
		items        string
		minC, maxC   int
		reps, period int
	}{
		{"aaaa", 1, 1, 4, 1},
		{"abab", 1, 2, 2, 2},
		{"aaaa", 2, 2, 0, 0}, // identical items are no ping-pong
		{"ababab", 2, 2, 3, 2},
		{"abababc", 1, 2, 1, 1},
		{"abcabcabc", 1, 3, 3, 3},
		{"abababab", 1, 4, 4, 2}, // abab is not a primitive cycle of 4
		{"aab", 1, 5, 1, 1},
		{"abcdeabcdeabcde", 1, 5, 3, 5},
	}
	for _, tt := range tests {
		var s RuleState
		var reps, period int
		for _, c := range []byte(tt.items) {
			reps, period, _ = s.consecutive(uint64(c), tt.minC, tt.maxC)
		}
		if reps != tt.reps || (reps > 0 && period != tt.period) {
			t.Errorf("%s with cycles %d..%d: %d repetitions of period %d; want %d of %d", tt.items, tt.minC, tt.maxC, reps, period, tt.reps, tt.period)
		}
		if len(s.Win) > tt.maxC {
			t.Errorf("%s: the window holds %d items; a cycle of %d needs %d", tt.items, len(s.Win), tt.maxC, tt.maxC)
		}
	}
}

func TestRunWindowIsBounded(t *testing.T) {
	var s RuleState
	for k := range uint64(MaxKeys + 10) {
		s.run(k + 1)
	}
	if len(s.Keys) != MaxKeys || s.Other != 10 {
		t.Fatalf("%d keys and %d shared; want %d and 10", len(s.Keys), s.Other, MaxKeys)
	}
	// A key past the cap shares a count, so it comes early, never late.
	if n := s.run(MaxKeys + 100); n != 11 {
		t.Errorf("a new key past the cap counts %d; want the shared 11", n)
	}
	if n := s.run(1); n != 2 {
		t.Errorf("a kept key counts %d; want 2", n)
	}
	for k := range uint64(MaxRefused + 3) {
		s.refuse(k + 1)
	}
	if len(s.Refused) != MaxRefused || s.Refused[0] != 4 {
		t.Errorf("refusals %v; want the last %d", s.Refused, MaxRefused)
	}
}

func TestMaskedHash(t *testing.T) {
	all := mDigits | mHex | mUUID
	same := [][2]string{
		{"pid 123 at 2026-01-01T10:00:00Z", "pid 98765 at 2026-11-23T08:12:59Z"},
		{"session 3f2b9a4e8c1d", "session a0b1c2d3e4f5"},
		{"id 3f2b9a4e-8c1d-4e5f-9a7b-0c6d2e1f3a4b done", "id 00000000-0000-4000-8000-000000000000 done"},
	}
	for _, p := range same {
		if maskedHash(p[0], all) != maskedHash(p[1], all) {
			t.Errorf("%q and %q differ after masking", p[0], p[1])
		}
	}
	for _, p := range [][2]string{{"ok", "failed"}, {"read a.go", "read b.go"}, {"pid 1", "pid"}} {
		if maskedHash(p[0], all) == maskedHash(p[1], all) {
			t.Errorf("%q and %q are equal after masking", p[0], p[1])
		}
	}
	if maskedHash("pid 1", 0) == maskedHash("pid 2", 0) {
		t.Error("without masks, digits count")
	}
	if n := testing.AllocsPerRun(100, func() { maskedHash(same[2][0], all) }); n != 0 {
		t.Errorf("maskedHash allocates %v times", n)
	}
}

func TestRulesMergeByName(t *testing.T) {
	p := DefaultPolicy()
	doc := `{"rules":[{"name":"ping_pong","disabled":true},{"name":"identical_call","ladder":[{"at":4,"do":"stop"}]},{"name":"fan_out","identity":["tool"],"window":"run","ladder":[{"at":5,"do":"advise","steer":"narrow_scope"},{"at":6,"do":"reject","every":true}]}]}`
	if err := json.Unmarshal([]byte(doc), &p); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(p.Rules))
	for i, r := range p.Rules {
		names[i] = r.Name
	}
	want := []string{"identical_call", "same_tool", "ping_pong", "mistakes", "monologue", "compactions", "fan_out"}
	if len(names) != len(want) {
		t.Fatalf("rules %v; want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("rules %v; want %v: a named rule replaces the one of its name where it stands", names, want)
		}
	}
	if r := p.Rules[0]; len(r.Ladder) != 1 || r.Ladder[0].At != 4 || r.ResetOn != nil {
		t.Errorf("identical_call %+v; want the decoded rule whole, not merged with the default", r)
	}
	if !p.Rules[2].Disabled {
		t.Error("ping_pong is not off")
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	if err := json.Unmarshal([]byte(`{"rules":[{"name":"x","ladder":[{"at":1,"do":"advise","stear":"x"}]}]}`), &p); err == nil {
		t.Error("an unknown field in a step was accepted")
	}
	if s := (&rule{count: CountCalls, fields: fAll, maxCycle: 1}).steerFor(&Step{}); s != event.SteerAvoidRepeat {
		t.Errorf("a calls rule's natural constraint is %s", s)
	}
}
