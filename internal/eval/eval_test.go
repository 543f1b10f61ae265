package eval_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/eval"
	"github.com/guardstream/guardstream/internal/eventlog"
	"github.com/guardstream/guardstream/internal/trajectory"
	"github.com/guardstream/guardstream/processors/processortest"
)

// sample reads testdata/sample.jsonl: a few hand-written recorded runs
// that draw a stop of each common kind, a reject, advice and pressure.
func sample(t testing.TB) []eval.Input {
	t.Helper()
	f, err := os.Open("testdata/sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []eval.Input
	if err := eval.Read(f, trajectory.DefaultMapping(), nil, func(in eval.Input) error {
		runs = append(runs, in)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return runs
}

func TestReport(t *testing.T) {
	e := eval.New(guard.Chain(guard.DefaultPolicy()), eval.Options{Examples: 1, Context: 2, Show: "stop"})
	for _, in := range sample(t) {
		e.Add(in.Run, in.Label, in.Events)
	}
	r := e.Report()
	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
	if r.Runs != 6 || len(r.Labels) != 2 || r.Labels[0].Label != "resolved" || r.Labels[0].Runs != 2 {
		t.Fatalf("runs %d, labels %+v", r.Runs, r.Labels)
	}
	for key, want := range map[string]float64{
		"stop": 0.75, "stop HALLUCINATED_SUCCESS": 0.25, "stop LOOP_DETECTED/identical_call": 0.25, "stop TOO_MANY_MISTAKES/mistakes": 0.25,
	} {
		if got := r.Share(key, "unresolved"); got != want {
			t.Errorf("%s touched %.2f of unresolved runs, want %.2f", key, got, want)
		}
	}
	if got := r.Share("reject POLICY_VIOLATION/shell", "resolved"); got != 0.5 {
		t.Errorf("the rm -rf / reject touched %.2f of resolved runs, want 0.5", got)
	}
	if len(r.Stops) != 3 || len(r.Shown) != 3 {
		t.Fatalf("stops %+v, shown %d", r.Stops, len(r.Shown))
	}
	loop := r.Stops[1]
	if loop.Key != "stop LOOP_DETECTED/identical_call" || loop.Step != 6 || loop.Steps != 7 || loop.SavedSteps != 1 || loop.SavedCost != 3060 {
		t.Errorf("the loop stop: %+v", loop)
	}
	for _, x := range r.Examples {
		if len(x.Events) == 0 || x.Msg == "" {
			t.Errorf("example without events or message: %+v", x)
		}
	}
	for _, want := range []string{"runs with any stop", "stop LOOP_DETECTED", "sample/loops", "6 of 7", "examples"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table has no %q", want)
		}
	}
}

// TestReplayObeys: after a stop nothing more is sent, and a refused call
// has no result.
func TestReplayObeys(t *testing.T) {
	h := processortest.NewHistory("acme", "r")
	h.Events()[0].Workspace = "/w"
	h.Call("bash", `{"command":"rm -rf /"}`).Result(false, "gone")
	for range 6 {
		h.Call("read_file", `{"path":"a"}`).Result(false, "same")
	}
	h.End(event.StatusCompleted)
	tr := eval.Replay(guard.Chain(guard.DefaultPolicy()), h.Events())
	for _, ev := range tr.Events {
		if ev.Kind == event.KindResult && ev.Call == "c1" {
			t.Error("the result of the rejected call was sent")
		}
	}
	if tr.Stopped < 0 || tr.Stopped != len(tr.Events)-1 || tr.Events[tr.Stopped].Call != "c6" {
		t.Errorf("stopped at %d of %d events (%+v), want the 5th identical call, last", tr.Stopped, len(tr.Events), tr.Events[tr.Stopped])
	}
}

// TestReadFormats: recorded runs and wire events, plain or gzip, give the
// same events.
func TestReadFormats(t *testing.T) {
	runs := sample(t)
	var events bytes.Buffer
	for _, in := range runs {
		for i := range in.Events {
			events.Write(eventlog.Append(nil, &in.Events[i]))
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(events.Bytes())
	zw.Close()
	labels := map[string]string{"eval/sample/loops": "unresolved"}
	for name, data := range map[string][]byte{"events": events.Bytes(), "gzip events": gz.Bytes()} {
		var got []eval.Input
		if err := eval.Read(bytes.NewReader(data), trajectory.DefaultMapping(), labels, func(in eval.Input) error {
			got = append(got, in)
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(runs) {
			t.Fatalf("%s: %d runs, want %d", name, len(got), len(runs))
		}
		for i := range got {
			if got[i].Run != "eval/"+runs[i].Run || len(got[i].Events) != len(runs[i].Events) {
				t.Errorf("%s: run %d is %s with %d events, want %s with %d", name, i, got[i].Run, len(got[i].Events), runs[i].Run, len(runs[i].Events))
			}
			want := eval.Unlabelled
			if got[i].Run == "eval/sample/loops" {
				want = "unresolved"
			}
			if got[i].Label != want {
				t.Errorf("%s: %s labelled %q, want %q", name, got[i].Run, got[i].Label, want)
			}
		}
	}
	err := eval.Read(strings.NewReader("{\"v\":1,\"k\":1,\"tn\":\"a\",\"run\":\"r\",\"seq\":1,\"ts\":1}\nnot json\n"), trajectory.DefaultMapping(), nil,
		func(eval.Input) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad line: %v, want an error naming line 2", err)
	}
}

// TestInjection: every fault class, put into each sample run that can
// carry it, is caught within its promise.
func TestInjection(t *testing.T) {
	p := guard.DefaultPolicy()
	e := eval.New(guard.Chain(p), eval.DefaultOptions())
	in := eval.NewInjector(p, 7)
	for _, r := range sample(t) {
		in.Add(e, r.Run, r.Events)
	}
	for _, r := range in.Recalls() {
		t.Logf("%-16s injected %d, caught %d, not reached %d, latency mean %.2f max %d, misses %v",
			r.Fault, r.Injected, r.Caught, r.NotReached, r.MeanLatency(), r.MaxLatency, r.Misses)
		if r.Injected-r.NotReached < 3 || r.Recall() < 1 {
			t.Errorf("%s: recall %.2f over %d reached runs", r.Fault, r.Recall(), r.Injected-r.NotReached)
		}
		if r.MaxLatency > r.PromiseCalls {
			t.Errorf("%s: caught after %d calls, promised %d", r.Fault, r.MaxLatency, r.PromiseCalls)
		}
	}
}
