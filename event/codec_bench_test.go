package event_test

import (
	"testing"

	"github.com/guardstream/guardstream/event"
)

var benchCall = event.Event{
	V: 1, Kind: event.KindCall, Tenant: "acme", Run: "run-42", Seq: 17, TS: 1767225600000,
	Call: "c17", Tool: "read_file", Args: `{"path":"src/pkg/file.go","query":"func main","n":3}`, Path: "src/pkg/file.go",
}

var benchDecision = event.Decision{
	V: 1, Kind: event.Advise, Tenant: "acme", Run: "run-42", Seq: 17, TS: 1767225600000, Call: "c17", Guard: "loop",
	Steer:  &event.Steer{Kind: event.SteerAvoidRepeat, Sig: "1b7e5bb760b98528", Tool: "read_file"},
	Counts: []event.Counter{{Name: "repeat", Value: 3}},
	Msg:    "you have made this exact read_file call 3 times in a row",
}

func BenchmarkDecodeEvent(b *testing.B) {
	data := event.AppendEvent(nil, &benchCall)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ev event.Event
	for i := 0; i < b.N; i++ {
		if err := event.DecodeEvent(data, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendEvent(b *testing.B) {
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = event.AppendEvent(buf[:0], &benchCall)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkAppendDecision(b *testing.B) {
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = event.AppendDecision(buf[:0], &benchDecision)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkValidate(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := benchCall.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckID checks a run id of the usual shape, which the runner
// checks for each event it handles and each subject it builds from one.
func BenchmarkCheckID(b *testing.B) {
	id := "run-7f3a9c2e-41d8-4b6a-9e0f-12ab34cd56ef"
	b.ReportAllocs()
	for b.Loop() {
		if err := event.CheckID(id); err != nil {
			b.Fatal(err)
		}
	}
}
