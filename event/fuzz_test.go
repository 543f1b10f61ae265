package event_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"

	"github.com/guardstream/guardstream/event"
)

// FuzzDecodeEvent checks the decoder on arbitrary bytes, seeded with the
// test vectors: it never panics and every error it returns, and every
// error Validate returns, wraps one of the sentinels a dead-letter reason
// is named for; an event that decodes and validates re-encodes to bytes
// that decode to the same event, which still validates; PeekCall, which
// reads the reject of a dead-lettered call, agrees with the decoder; and
// DecodeDecision never panics either.
func FuzzDecodeEvent(f *testing.F) {
	for _, v := range loadVectors(f) {
		b, err := hex.DecodeString(v.Hex)
		if err != nil {
			f.Fatalf("%s: %v", v.Name, err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d event.Decision
		_ = event.DecodeDecision(b, &d)
		call, seq, ts, peeked := event.PeekCall(b)
		var ev event.Event
		err := event.DecodeEvent(b, &ev)
		if err == nil {
			err = ev.Validate()
		}
		if err != nil {
			if !typed(err) {
				t.Fatalf("%x: error %q wraps none of the sentinels", b, err)
			}
			return
		}
		if peeked && (call != ev.Call || seq != ev.Seq || ts != ev.TS) {
			t.Fatalf("%x: PeekCall read %q, %d, %d; the decoder %q, %d, %d", b, call, seq, ts, ev.Call, ev.Seq, ev.TS)
		}
		enc := event.AppendEvent(nil, &ev)
		var again event.Event
		if err := event.DecodeEvent(enc, &again); err != nil {
			t.Fatalf("%x re-encoded as %x: %v", b, enc, err)
		}
		if err := again.Validate(); err != nil {
			t.Fatalf("%x re-encoded as %x: %v", b, enc, err)
		}
		if !reflect.DeepEqual(normal(ev), normal(again)) {
			t.Fatalf("%x re-encoded as %x decodes to\n%+v\nnot\n%+v", b, enc, again, ev)
		}
		if enc2 := event.AppendEvent(nil, &again); !bytes.Equal(enc, enc2) {
			t.Fatalf("%x re-encoded as %x, then as %x", b, enc, enc2)
		}
	})
}

// typed reports whether err wraps a sentinel of the package.
func typed(err error) bool {
	for _, s := range []error{event.ErrUndecodable, event.ErrWrongType, event.ErrVersion, event.ErrInvalid} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// normal returns ev with its empty lists nil, as the encoder leaves them
// out and the decoder then gives them back.
func normal(ev event.Event) event.Event {
	nilIfEmpty := func(s []string) []string {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	ev.Outputs, ev.Calls = nilIfEmpty(ev.Outputs), nilIfEmpty(ev.Calls)
	if len(ev.Tools) == 0 {
		ev.Tools = nil
	}
	if len(ev.Docs) == 0 {
		ev.Docs = nil
	}
	if ev.Changes != nil {
		c := *ev.Changes
		c.Paths = nilIfEmpty(c.Paths)
		ev.Changes = &c
	}
	return ev
}

// TestPeekCall: PeekCall reads the reject's fields from payloads the
// decoder refuses, as a generic decode would, and nothing from those it
// cannot walk.
func TestPeekCall(t *testing.T) {
	tests := []struct {
		name    string
		m       any
		raw     []byte
		call    string
		seq, ts int64
		ok      bool
	}{
		{name: "a call with a wrong type elsewhere", m: map[string]any{"v": 1, "k": 4, "call": "c1", "seq": 3, "ts": int64(t0), "tool": 5}, call: "c1", seq: 3, ts: t0, ok: true},
		{name: "a negative seq", m: map[string]any{"call": "c1", "seq": -3, "ts": "x"}, call: "c1", ok: true},
		{name: "a seq beyond int64", m: map[string]any{"call": "c1", "seq": uint64(1) << 63}, call: "c1", ok: true},
		{name: "a call id that is a number", m: map[string]any{"call": 7, "seq": 3}, seq: 3},
		{name: "no call id", m: map[string]any{"seq": 3}, seq: 3},
		{name: "an array", m: []any{"call", "c1"}},
		{name: "integer keys", m: map[int]any{1: "c1"}},
		{name: "nested deeper than MaxNesting", raw: append([]byte{0x82, 0xa4, 'c', 'a', 'l', 'l', 0xa2, 'c', '1', 0xa1, 'x'}, bytes.Repeat([]byte{0x91}, 1<<20)...)},
		{name: "an array claiming four billion elements", raw: []byte{0x82, 0xa4, 'c', 'a', 'l', 'l', 0xa2, 'c', '1', 0xa1, 'x', 0xdd, 0xff, 0xff, 0xff, 0xff}},
		{name: "truncated", raw: []byte{0x82, 0xa4, 'c', 'a', 'l', 'l', 0xa2, 'c', '1'}},
	}
	for _, tt := range tests {
		b := tt.raw
		if b == nil {
			b = pack(tt.m)
		}
		call, seq, ts, ok := event.PeekCall(b)
		if call != tt.call || seq != tt.seq || ts != tt.ts || ok != tt.ok {
			t.Errorf("%s: PeekCall = %q, %d, %d, %t; want %q, %d, %d, %t", tt.name, call, seq, ts, ok, tt.call, tt.seq, tt.ts, tt.ok)
		}
	}
}
