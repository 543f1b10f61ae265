package guard_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/processortest"
)

// script builds the events of a ported test case the way an agent loop
// publishes them: a step before each call, results after. Events can carry
// labels, which the case's expectations name.
type script struct {
	h      *processortest.History
	labels map[int64]string // by seq
}

func newScript(run string) *script {
	return &script{h: processortest.NewHistory("acme", run), labels: map[int64]string{}}
}

func (s *script) label(l string) {
	if l != "" {
		s.labels[s.h.Seq()] = l
	}
}

// call adds a step and a call; l labels the call.
func (s *script) call(l, tool, args string) *script {
	s.h.Step()
	s.h.Call(tool, args)
	s.label(l)
	return s
}

// result adds the result of the last call.
func (s *script) result(l string, failed bool, out string) *script {
	s.h.Result(failed, out)
	s.label(l)
	return s
}

// exec adds a call with its result: the common case.
func (s *script) exec(l, tool, args string, failed bool, out string) *script {
	return s.call("", tool, args).result(l, failed, out)
}

// callAt is call with a target path.
func (s *script) callAt(l, tool, args, path string) *script {
	s.call(l, tool, args)
	evs := s.h.Events()
	evs[len(evs)-1].Path = path
	return s
}

func (s *script) add(l string, ev event.Event) *script {
	s.h.Add(ev)
	s.label(l)
	return s
}

// user adds a user's message: a new turn.
func (s *script) user(l string) *script { return s.add(l, event.Event{Kind: event.KindTurn}) }

// say adds an assistant message without a tool call: a step with a text
// digest.
func (s *script) say(l, text string) *script {
	return s.add(l, event.Event{Kind: event.KindStep, TextDig: event.Digest([]byte(text))})
}

// compact adds a context compaction.
func (s *script) compact(l string) *script { return s.add(l, event.Event{Kind: event.KindCompact}) }

// resume adds a resume by who.
func (s *script) resume(l, who string) *script {
	return s.add(l, event.Event{Kind: event.KindResume, By: who, Why: "continue"})
}

// ported is one test case of another system, ported: the file and test
// it comes from, the policy change the test makes (if any), the events,
// and what the labelled events must draw. Every event not labelled must
// draw nothing but a plain allow (and the bounded view of a result), up
// to a stop, after which the run is over.
type ported struct {
	from    string
	mod     func(*guard.Policy)
	script  func() *script
	want    map[string]string
	outputs bool // also show output decisions, as "output" or "output:more"
	diags   bool // also show where diagnostics point, as "reject:INVALID_ARGS[/path]"
}

// runPorted runs the ported cases of a preset through the whole chain the
// preset builds, and each guard that decides something in a case through
// the conformance kit, after the guards before it in the chain.
func runPorted(t *testing.T, preset string, cases []ported) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.from, func(t *testing.T) {
			p, err := guard.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			if c.mod != nil {
				c.mod(&p)
				if err := p.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			s := c.script()
			render := func(ds []event.Decision) string {
				var parts []string
				for _, d := range ds {
					switch {
					case d.Kind == event.Output && !c.outputs:
						continue
					case d.Kind == event.Output && d.Trunc != nil && d.Trunc.HasMore:
						parts = append(parts, "output:more")
					case c.diags && len(d.Diags) > 0:
						var at []string
						for _, g := range d.Diags {
							at = append(at, g.Path)
						}
						parts = append(parts, processortest.Brief(&d)+"["+strings.Join(at, " ")+"]")
					default:
						parts = append(parts, processortest.Brief(&d))
					}
				}
				return strings.Join(parts, " ")
			}
			got, _ := processortest.BySeq(guard.Chain(p), s.h.Events(), render)
			byLabel := map[string]string{}
			for seq, l := range s.labels {
				byLabel[l] = got[seq]
			}
			for l, want := range c.want {
				if byLabel[l] != want {
					t.Errorf("%s: got %q, want %q", l, byLabel[l], want)
				}
			}
			stoppedAt := int64(1 << 62)
			for seq, g := range got {
				if strings.Contains(g, "stop:") {
					stoppedAt = min(stoppedAt, seq)
				}
			}
			for seq, g := range got {
				if _, labelled := s.labels[seq]; !labelled && seq <= stoppedAt && g != "allow" && g != "" {
					t.Errorf("event #%d (%s), not labelled, drew %q", seq, &s.h.Events()[seq-1], g)
				}
			}
			if t.Failed() || len(c.want) == 0 {
				return
			}
			procs := guard.Chain(p).Processors()
			for _, i := range deciding(procs, s) {
				t.Run(procs[i].Name(), func(t *testing.T) {
					processortest.RunAfter(t, procs[i], s.h.Events(), procs[:i]...)
				})
			}
		})
	}
}

// deciding returns the positions of the processors of a chain that decide
// something over s, in the chain's order: those the conformance kit can
// prove something of.
func deciding(procs []processors.Processor, s *script) []int {
	var at []int
	_, _ = processortest.BySeq(processors.NewChain(procs...), s.h.Events(), func(ds []event.Decision) string {
		for _, d := range ds {
			for i, p := range procs {
				if d.Guard == p.Name() && !slices.Contains(at, i) {
					at = append(at, i)
				}
			}
		}
		return ""
	})
	slices.Sort(at)
	return at
}

// repeat runs f n times with the index.
func repeat(n int, f func(i int)) {
	for i := range n {
		f(i)
	}
}

// rule returns the loop rule of p named name.
func rule(p *guard.Policy, name string) *loop.Rule {
	for i := range p.Loop.Rules {
		if p.Loop.Rules[i].Name == name {
			return &p.Loop.Rules[i]
		}
	}
	panic(fmt.Sprintf("no loop rule %s", name))
}
