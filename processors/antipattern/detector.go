package antipattern

import (
	"fmt"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/workspace"
	"github.com/guardstream/guardstream/processors"
)

// Name is the detector's processor name.
const Name = "antipattern"

// Detector is the anti-pattern processor.
type Detector struct {
	p          Policy
	writeTools workspace.Set
	pathKeys   workspace.Set
	patchKeys  workspace.Set
}

// New returns a detector with policy p, which must be valid.
func New(p Policy) *Detector {
	return &Detector{p: p, writeTools: workspace.NewSet(p.Vocabulary.WriteTools), pathKeys: workspace.NewSet(p.Vocabulary.PathKeys), patchKeys: workspace.NewSet(p.Vocabulary.PatchKeys)}
}

// Name returns "antipattern".
func (*Detector) Name() string { return Name }

// NewState returns the state of a fresh run.
func (*Detector) NewState() processors.State { return &State{} }

// Apply follows outputs, verifications and planning, and decides.
func (d *Detector) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindRunStart:
		d.start(s, ev)
	case event.KindCall:
		d.call(s, ev)
	case event.KindResult:
		d.result(s, ev)
	case event.KindStep:
		d.step(s, ev, out)
	case event.KindRunEnd:
		d.end(s, ev, out)
	}
}

func (d *Detector) start(s *State, ev *event.Event) {
	if s.Started {
		return // the first run start decides
	}
	s.Started, s.Workspace = true, ev.Workspace
	root := workspace.NewRoot(ev.Workspace)
	for _, o := range ev.Outputs {
		if len(s.Missing) == event.MaxDeclared {
			break
		}
		rel, _ := root.Rel(o)
		if rel != "" && !contains(s.Missing, rel) {
			s.Missing = append(s.Missing, rel)
		}
	}
	s.Declared = len(s.Missing)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *Detector) call(s *State, ev *event.Event) {
	p := Pending{Call: ev.Call, Tool: ev.Tool, Write: d.writeTools.Has(ev.Tool)}
	if p.Write && len(s.Missing) > 0 {
		root := workspace.NewRoot(s.Workspace)
		note := func(rel string, inside bool) bool {
			if inside && s.wanted(rel) && !contains(p.Paths, rel) {
				p.Paths = append(p.Paths, rel)
			}
			return len(p.Paths) < MaxCallPaths
		}
		workspace.CallPaths(root, ev.Path, ev.Args, d.pathKeys, func(_, rel string, inside bool) bool { return note(rel, inside) })
		workspace.Strings(ev.Args, d.patchKeys.Has, func(_, text string) bool {
			workspace.PatchPaths(text, func(path string, deleted bool) bool {
				if deleted {
					return true
				}
				return note(root.Rel(path))
			})
			return len(p.Paths) < MaxCallPaths
		})
	}
	s.addPending(p)
}

func (d *Detector) result(s *State, ev *event.Event) {
	p, ok := s.takePending(ev.Call)
	if !ok && ev.Tool != "" { // a result that says what it was
		p = Pending{Call: ev.Call, Tool: ev.Tool, Write: d.writeTools.Has(ev.Tool)}
		if p.Write && ev.Path != "" {
			if rel, inside := workspace.NewRoot(s.Workspace).Rel(ev.Path); inside {
				p.Paths = []string{rel}
			}
		}
	}
	failed := ev.Err || ev.Exit != 0
	if ev.Verify {
		s.Verify = Verification{Seen: true, Failed: failed, Call: ev.Call, Tool: p.Tool, Exit: ev.Exit, Err: ev.Err, Seq: ev.Seq}
	}
	if failed {
		return
	}
	changed := p.Write
	if c := ev.Changes; c != nil {
		changed = changed || c.Files > 0 || c.Lines > 0 || c.Hunks > 0 || len(c.Paths) > 0
		if len(s.Missing) > 0 {
			root := workspace.NewRoot(s.Workspace)
			for _, path := range c.Paths {
				rel, _ := root.Rel(path)
				s.produce(rel)
			}
		}
	}
	for _, path := range p.Paths {
		s.produce(path)
	}
	if changed {
		s.Planning, s.Advised = 0, false
	}
}

func (d *Detector) step(s *State, ev *event.Event, out *processors.Out) {
	if !ev.Planning {
		return
	}
	s.Planning++
	n := s.Planning
	switch {
	case d.p.PlanningStop > 0 && n >= d.p.PlanningStop:
		out.Stop(event.ReasonPlanningLoop, event.StatusFailed,
			fmt.Sprintf("%d planning steps without applying a change", n),
			processors.Count("planning", n))
	case d.p.PlanningAdvise > 0 && n > d.p.PlanningAdvise && !s.Advised:
		s.Advised = true
		out.Advise(event.Steer{Kind: event.SteerCommitPlan},
			fmt.Sprintf("%d planning steps without applying a change; commit to a plan, reduce its scope if need be, and make the first change now", n),
			processors.Count("planning", n))
	}
}

func (d *Detector) end(s *State, ev *event.Event, out *processors.Out) {
	if ev.Status != event.StatusCompleted || !d.p.HallucinatedSuccess {
		return
	}
	v := s.Verify
	if !v.Failed && len(s.Missing) == 0 {
		return
	}
	var why []string
	var counts []event.Counter
	if v.Failed {
		what := "call " + v.Call
		if v.Tool != "" {
			what += " (" + v.Tool + ")"
		}
		switch {
		case v.Exit != 0:
			what += fmt.Sprintf(" exited with code %d", v.Exit)
		default:
			what += " reported an error"
		}
		why = append(why, "its last verification failed: "+what)
		counts = append(counts, processors.Count("verify_exit", v.Exit), processors.Count("verify_seq", v.Seq))
	}
	if n := len(s.Missing); n > 0 {
		names := s.Missing
		more := ""
		if n > 5 {
			names, more = names[:5], fmt.Sprintf(" and %d more", n-5)
		}
		why = append(why, fmt.Sprintf("%d of %d promised outputs were never produced: %s%s", n, s.Declared, strings.Join(names, ", "), more))
		counts = append(counts, processors.Count("missing_outputs", n), processors.Count("outputs", s.Declared))
	}
	out.Stop(event.ReasonHallucinatedSuccess, event.StatusFailed,
		"the run claimed success, but "+strings.Join(why, "; and ")+"; its outcome is overridden to failed",
		counts...)
}
