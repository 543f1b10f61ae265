package event_test

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/vmihailenco/msgpack/v5"
)

// encodeTagged encodes d as msgpack's reflection does from the struct
// tags, with the codec's settings: the definition of the wire form
// AppendDecision writes by hand.
func encodeTagged(t testing.TB, d *event.Decision) []byte {
	var b bytes.Buffer
	enc := msgpack.NewEncoder(&b)
	enc.UseCompactInts(true)
	if err := enc.Encode(d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fullDecision sets every field of a decision, with values that need
// more than the smallest msgpack encodings.
func fullDecision() event.Decision {
	return event.Decision{
		V: event.Version, Kind: event.Stop, Tenant: "acme", Run: "run-42", Seq: 1 << 40, TS: 1767225600000,
		Call: "c17", Guard: "loop", Reason: event.ReasonLoopDetected, Rule: "max_repeats",
		Outcome: event.StatusFailed, Msg: "stop", Steer: &event.Steer{Kind: event.SteerAvoidRepeat, Sig: "1b7e5bb760b98528", Tool: "grep"},
		Counts: []event.Counter{{Name: "repeat", Value: 3}, {Name: "neg", Value: -300}},
		Args:   `{"a":1}`, Diags: []event.Diag{{Path: "/a", Want: "string", Got: "1", Msg: "want a string"}},
		Near: []string{"read_file"}, Level: 85, View: "line 1\n",
		Ref:   &event.OutputRef{Digest: "sha256:00", Size: 70000},
		Trunc: &event.Truncation{Offset: 3, LinesShown: 40, LinesRemaining: 1000, HasMore: true, TotalLines: 1043, TotalBytes: 1 << 20},
		Calls: []string{"c1", "c2"}, Missing: []string{"c2"},
	}
}

// TestDecisionEncodingMatchesTags checks that the hand-written encoder
// writes what the struct tags say: for a decision with every field set,
// with each field in turn left zero, and with each optional field of the
// truncation left zero.
func TestDecisionEncodingMatchesTags(t *testing.T) {
	cases := map[string]event.Decision{"zero": {}, "full": fullDecision()}
	typ := reflect.TypeFor[event.Decision]()
	for i := range typ.NumField() {
		d := fullDecision()
		reflect.ValueOf(&d).Elem().Field(i).SetZero()
		cases["no "+typ.Field(i).Name] = d
	}
	for _, zero := range []func(*event.Truncation){
		func(tr *event.Truncation) { tr.Offset = 0 },
		func(tr *event.Truncation) { tr.LinesRemaining = 0 },
		func(tr *event.Truncation) { tr.HasMore = false },
		func(tr *event.Truncation) { *tr = event.Truncation{} },
	} {
		d := fullDecision()
		zero(d.Trunc)
		cases["trunc "+string(encodeTagged(t, &d))] = d
	}
	for name, d := range cases {
		got, want := event.AppendDecision(nil, &d), encodeTagged(t, &d)
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % x\nwant % x", name, got, want)
			continue
		}
		if d.V != event.Version || d.Kind == 0 {
			continue // the decoder refuses them
		}
		var back event.Decision
		if err := event.DecodeDecision(got, &back); err != nil {
			t.Errorf("%s: decoding: %v", name, err)
		} else if !reflect.DeepEqual(back, d) {
			t.Errorf("%s: decoded %+v, want %+v", name, back, d)
		}
	}
}

// FuzzDecisionEncoding checks the hand-written encoder against the
// struct tags on arbitrary strings and integers.
func FuzzDecisionEncoding(f *testing.F) {
	f.Add(uint8(1), "acme", "run-1", int64(1), int64(0), "", "", int64(0), false)
	f.Add(uint8(9), "t", "r", int64(-1), int64(1<<62), "c", "view", int64(-129), true)
	f.Fuzz(func(t *testing.T, kind uint8, tenant, run string, seq, ts int64, call, view string, n int64, more bool) {
		d := event.Decision{V: event.Version, Kind: event.DecisionKind(kind), Tenant: tenant, Run: run, Seq: seq, TS: ts,
			Call: call, View: view, Level: n, Counts: []event.Counter{{Name: call, Value: n}}}
		if more {
			d.Ref = &event.OutputRef{Digest: view, Size: n}
			d.Trunc = &event.Truncation{Offset: n, LinesShown: seq, LinesRemaining: ts, HasMore: n%2 == 0, TotalLines: n, TotalBytes: seq}
			d.Steer = &event.Steer{Kind: event.SteerKind(run), Sig: call, Tool: view}
		}
		if got, want := event.AppendDecision(nil, &d), encodeTagged(t, &d); !bytes.Equal(got, want) {
			t.Errorf("%+v:\n got % x\nwant % x", d, got, want)
		}
	})
}

// TestDecisionEncodingBoundaries checks the hand-written encoder against
// the struct tags at each width msgpack's forms change: integers, string
// lengths and array lengths on either side of each boundary.
func TestDecisionEncodingBoundaries(t *testing.T) {
	ints := []int64{0, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}
	lens := []int{0, 1, 31, 32, 255, 256, 65535, 65536}
	for i := range max(len(ints), len(lens)) {
		n, l := ints[i%len(ints)], lens[i%len(lens)]
		s := strings.Repeat("x", l)
		d := fullDecision()
		d.Seq, d.TS, d.Level, d.Counts[1].Value, d.Trunc.TotalBytes = n, -n, n, n, n
		d.Msg, d.View, d.Ref.Digest = s, s, s
		d.Near = make([]string, i) // 0 to 19 entries: the fixed array form ends at 15
		d.Calls = []string{s, s[:l/2]}
		if got, want := event.AppendDecision(nil, &d), encodeTagged(t, &d); !bytes.Equal(got, want) {
			t.Errorf("integer %d, strings of %d bytes: the encodings differ (%d bytes, want %d)", n, l, len(got), len(want))
		}
	}
}
