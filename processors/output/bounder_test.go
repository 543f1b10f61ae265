package output_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/output"
	"github.com/guardstream/guardstream/processors/processortest"
)

// start returns a history whose run starts in workspace ws.
func start(run, ws string) *processortest.History {
	h := &processortest.History{Tenant: "acme", Run: run}
	return h.Add(event.Event{Kind: event.KindRunStart, Agent: "test", Workspace: ws})
}

// lines returns n lines "<prefix>1\n", "<prefix>2\n", ...
func lines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

// decide applies h and returns the decisions of its last event.
func decide(t *testing.T, p output.Policy, h *processortest.History) []event.Decision {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	c := processors.NewChain(output.New(p))
	r := c.NewRun()
	var out processors.Out
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
	}
	return out.Decisions
}

func policy(mod func(*output.Policy)) output.Policy {
	p := output.DefaultPolicy()
	if mod != nil {
		mod(&p)
	}
	return p
}

func TestBounder(t *testing.T) {
	big := lines("/home/u/proj/src/f", 600)
	loaded := lines("x", 10)
	loadedRef := &event.OutputRef{Digest: event.Digest([]byte(loaded)), Size: int64(len(loaded))}
	tests := []struct {
		name    string
		policy  func(*output.Policy)
		history *processortest.History
		// what the last event decides
		view   string // the view, or its prefix when it ends in "…"
		trunc  event.Truncation
		ref    *event.OutputRef // nil: the digest of the result's Out
		advise bool
		rule   string
	}{
		{
			name:    "a short output is shown whole",
			history: start("r", "").Call("ls", `{}`).Result(false, "a.go\nb.go\n"),
			view:    "a.go\nb.go\n",
			trunc:   event.Truncation{LinesShown: 2, TotalLines: 2, TotalBytes: 10},
		},
		{
			name:    "a long output is cut at 500 lines, paths made relative",
			history: start("r", "/home/u/proj").Call("read_file", `{}`).Result(false, big),
			view:    lines("src/f", 500) + "[truncated: lines 1-500 of 600 shown, 100 more; full output " + event.Digest([]byte(big)) + fmt.Sprintf(" (%d bytes); next page at offset 500]", len(big)),
			trunc:   event.Truncation{LinesShown: 500, LinesRemaining: 100, HasMore: true, TotalLines: 600, TotalBytes: int64(len(big))},
		},
		{
			name:    "a tool's own caps apply, found from its call",
			policy:  func(p *output.Policy) { p.Tools = map[string]output.Caps{"read_file": {MaxLines: 100}} },
			history: start("r", "/home/u/proj").Call("read_file", `{}`).Result(false, big),
			view:    lines("src/f", 100) + "[truncated: lines 1-100 of 600 shown…",
			trunc:   event.Truncation{LinesShown: 100, LinesRemaining: 500, HasMore: true, TotalLines: 600, TotalBytes: int64(len(big))},
		},
		{
			name:    "a tool's own caps apply, found from the result",
			policy:  func(p *output.Policy) { p.Tools = map[string]output.Caps{"read_file": {MaxLines: 100}} },
			history: start("r", "").Add(event.Event{Kind: event.KindResult, Call: "c9", Tool: "read_file", Out: big}),
			view:    lines("/home/u/proj/src/f", 100) + "[truncated: lines 1-100 of 600 shown…",
			trunc:   event.Truncation{LinesShown: 100, LinesRemaining: 500, HasMore: true, TotalLines: 600, TotalBytes: int64(len(big))},
		},
		{
			name:    "other tools keep the policy's caps",
			policy:  func(p *output.Policy) { p.Tools = map[string]output.Caps{"read_file": {MaxLines: 100}} },
			history: start("r", "").Call("cat", `{}`).Result(false, big),
			view:    lines("/home/u/proj/src/f", 500) + "[truncated: lines 1-500 of 600 shown…",
			trunc:   event.Truncation{LinesShown: 500, LinesRemaining: 100, HasMore: true, TotalLines: 600, TotalBytes: int64(len(big))},
		},
		{
			name:    "an empty search draws zero_results",
			history: start("r", "").Call("grep", `{"q":"nope"}`).Result(false, " \n\t\n"),
			view:    " \n\t\n",
			trunc:   event.Truncation{LinesShown: 2, TotalLines: 2, TotalBytes: 4},
			advise:  true,
		},
		{
			name:    "a search without output draws zero_results",
			history: start("r", "").Call("rg", `{"q":"nope"}`).Result(false, ""),
			trunc:   event.Truncation{},
			advise:  true,
		},
		{
			name:    "a failed search does not",
			history: start("r", "").Call("grep", `{"q":"("}`).Result(true, ""),
			trunc:   event.Truncation{},
		},
		{
			name:    "a search that found something does not",
			history: start("r", "").Call("grep", `{"q":"x"}`).Result(false, "a.go:1: x\n"),
			view:    "a.go:1: x\n",
			trunc:   event.Truncation{LinesShown: 1, TotalLines: 1, TotalBytes: 10},
		},
		{
			name:    "an empty output of another tool does not",
			history: start("r", "").Call("edit_file", `{}`).Result(false, ""),
			trunc:   event.Truncation{},
		},
		{
			name:    "search_tools empty turns the advice off",
			policy:  func(p *output.Policy) { p.SearchTools = nil },
			history: start("r", "").Call("grep", `{}`).Result(false, ""),
			trunc:   event.Truncation{},
		},
		{
			name:    "a search tool named on the result only",
			history: start("r", "").Add(event.Event{Kind: event.KindResult, Call: "c7", Tool: "glob"}),
			trunc:   event.Truncation{},
			advise:  true,
		},
		{
			name:    "an output loaded by the runner keeps its reference",
			history: start("r", "").Call("ls", `{}`).Add(event.Event{Kind: event.KindResult, Call: "c1", Out: loaded, Ref: loadedRef}),
			view:    loaded,
			trunc:   event.Truncation{LinesShown: 10, TotalLines: 10, TotalBytes: int64(len(loaded))},
			ref:     loadedRef,
		},
		{
			name:    "an output the runner did not load is named, not shown",
			history: start("r", "").Call("grep", `{}`).Add(event.Event{Kind: event.KindResult, Call: "c1", Ref: loadedRef}),
			view:    "[output not shown: full output " + loadedRef.Digest + fmt.Sprintf(" (%d bytes) is in the object store]", loadedRef.Size),
			trunc:   event.Truncation{TotalBytes: loadedRef.Size},
			ref:     loadedRef,
			rule:    "output_not_loaded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := decide(t, policy(tt.policy), tt.history)
			evs := tt.history.Events()
			last := evs[len(evs)-1]
			want := 1
			if tt.advise {
				want = 2
			}
			if len(ds) != want {
				t.Fatalf("%d decisions, want %d: %v", len(ds), want, ds)
			}
			d := ds[0]
			rule := tt.rule
			if rule == "" {
				rule = output.Name // the bounder's one rule
			}
			if d.Kind != event.Output || d.Guard != output.Name || d.Call != last.Call || d.Rule != rule {
				t.Errorf("decision %s", processortest.String(&d))
			}
			if prefix, ok := strings.CutSuffix(tt.view, "…"); ok {
				if !strings.HasPrefix(d.View, prefix) {
					t.Errorf("view %q…\nwant it to start %q", d.View[:min(len(d.View), 200)], prefix[:min(len(prefix), 200)])
				}
			} else if d.View != tt.view {
				t.Errorf("view %q\nwant %q", d.View, tt.view)
			}
			if d.Trunc == nil || *d.Trunc != tt.trunc {
				t.Errorf("trunc %+v, want %+v", d.Trunc, tt.trunc)
			}
			wantRef := tt.ref
			if wantRef == nil {
				wantRef = &event.OutputRef{Digest: event.Digest([]byte(last.Out)), Size: int64(len(last.Out))}
			}
			if d.Ref == nil || *d.Ref != *wantRef {
				t.Errorf("ref %+v, want %+v", d.Ref, wantRef)
			}
			if tt.advise {
				a := ds[1]
				if a.Kind != event.Advise || a.Steer == nil || a.Steer.Kind != event.SteerZeroResults || a.Steer.Tool == "" || a.Msg != output.ZeroResultsMsg {
					t.Errorf("advice %s", processortest.String(&a))
				}
			}
		})
	}
}

// TestAbandoned checks that a call the agent gave up on before it ran
// draws neither an output nor a zero_results advice: it has no output.
func TestAbandoned(t *testing.T) {
	for _, h := range []*processortest.History{
		start("r", "").Call("grep", `{"q":"x"}`).Add(event.Event{Kind: event.KindResult, Call: "c1", Abandoned: true}),
		start("r", "").Add(event.Event{Kind: event.KindResult, Call: "c7", Tool: "glob", Abandoned: true}),
	} {
		if ds := decide(t, output.DefaultPolicy(), h); len(ds) != 0 {
			t.Errorf("an abandoned call drew %d decisions: %v", len(ds), ds)
		}
	}
}

func TestPendingIsBounded(t *testing.T) {
	p := output.New(output.DefaultPolicy())
	c := processors.NewChain(p)
	r := c.NewRun()
	h := start("r", "")
	for range 3 * output.MaxPending {
		h.Call("grep", `{}`)
	}
	var out processors.Out
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
	}
	if n := len(r.Parts[0].(*output.State).Pending); n != output.MaxPending {
		t.Errorf("%d calls remembered, want %d", n, output.MaxPending)
	}
	// Results take their calls out; unremembered ones change nothing.
	h.ResultOf(fmt.Sprintf("c%d", 3*output.MaxPending), false, "x").ResultOf("c1", false, "")
	evs := h.Events()
	for _, ev := range evs[len(evs)-2:] {
		c.Apply(r, &ev, &out)
	}
	if n := len(r.Parts[0].(*output.State).Pending); n != output.MaxPending-1 {
		t.Errorf("%d calls remembered after a result, want %d", n, output.MaxPending-1)
	}
	if len(out.Decisions) != 1 {
		t.Errorf("a result whose call was forgotten: %d decisions, want the output only", len(out.Decisions))
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := output.DefaultPolicy().Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	good := policy(func(p *output.Policy) {
		p.Tools = map[string]output.Caps{"read_file": {MaxLines: 500}, "cat": {MaxBytes: 4096}}
	})
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*output.Policy){
		"no lines":          func(p *output.Policy) { p.MaxLines = 0 },
		"too many lines":    func(p *output.Policy) { p.MaxLines = output.MaxViewLines + 1 },
		"too few bytes":     func(p *output.Policy) { p.MaxBytes = 100 },
		"too many bytes":    func(p *output.Policy) { p.MaxBytes = output.MaxViewBytes + 1 },
		"negative override": func(p *output.Policy) { p.Tools = map[string]output.Caps{"x": {MaxLines: -1}} },
		"tiny override":     func(p *output.Policy) { p.Tools = map[string]output.Caps{"x": {MaxBytes: 10}} },
		"empty tool name":   func(p *output.Policy) { p.Tools = map[string]output.Caps{"": {MaxLines: 5}} },
		"empty search tool": func(p *output.Policy) { p.SearchTools = []string{"grep", ""} },
	}
	for name, mod := range bad {
		if err := policy(mod).Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}

// histories are the scenarios of the golden logs and the conformance kit.
func histories() map[string]*processortest.History {
	hs := map[string]*processortest.History{}
	hs["bounded"] = start("bounded", "/w").
		Call("read_file", `{"path":"a.go"}`).Result(false, lines("/w/a.go:", 8)).
		Call("ls", `{}`).Result(false, "/w/a.go\n/w/b.go\n/w\n").
		Call("cat", `{}`).Result(true, "cat: /w/missing: no such file\n").
		Add(event.Event{Kind: event.KindResult, Call: "c9", Ref: &event.OutputRef{Digest: event.Digest([]byte("x")), Size: 1}})
	hs["zero-results"] = start("zero", "/w").
		Call("grep", `{"q":"nope"}`).Result(false, "").
		Call("find", `{"name":"*.rs"}`).Result(false, "\n").
		Call("grep", `{"q":"("}`).Result(true, "grep: bad pattern\n").
		Call("grep", `{"q":"main"}`).Result(false, "/w/main.go:1: package main\n").
		Call("edit_file", `{}`).Result(false, "").
		End(event.StatusCompleted)
	return hs
}

// goldenPolicy keeps golden logs short: 5 lines per view, 3 for read_file.
func goldenPolicy() output.Policy {
	return policy(func(p *output.Policy) {
		p.MaxLines = 5
		p.Tools = map[string]output.Caps{"read_file": {MaxLines: 3}}
	})
}

func TestGolden(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			c := processors.NewChain(output.New(goldenPolicy()))
			processortest.Golden(t, c, h.Events(), name)
			goldenViews(t, c, h.Events(), name)
		})
	}
}

// goldenViews compares the views the history's output decisions carry,
// byte for byte, with testdata/<name>.views, or rewrites the file with
// -update (processortest's flag).
func goldenViews(t *testing.T, c *processors.Chain, history []event.Event, name string) {
	t.Helper()
	var b strings.Builder
	r := c.NewRun()
	var out processors.Out
	for i := range history {
		ev := history[i]
		c.Apply(r, &ev, &out)
		for _, d := range out.Decisions {
			if d.Kind == event.Output {
				fmt.Fprintf(&b, "#%d %s %+v\n    %q\n", ev.Seq, d.Call, *d.Trunc, d.View)
			}
		}
	}
	processortest.GoldenFile(t, filepath.Join("testdata", name+".views"), b.String())
}

func TestConformance(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			processortest.Run(t, output.New(goldenPolicy()), h.Events())
			processortest.Run(t, output.New(output.DefaultPolicy()), h.Events())
		})
	}
}
