package antipattern

import (
	"fmt"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/exitcode"
	"github.com/guardstream/guardstream/internal/shell"
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
	shells     workspace.Shells
}

// New returns a detector with policy p, which must be valid.
func New(p Policy) *Detector {
	v := p.Vocabulary
	return &Detector{p: p, writeTools: workspace.NewSet(v.WriteTools), pathKeys: workspace.NewSet(v.PathKeys), patchKeys: workspace.NewSet(v.PatchKeys),
		shells: v.Shells()}
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
		d.result(s, ev, out)
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
	s.Shells = d.shells.Declared(ev.Tools)
	s.Writers = workspace.DeclaredWriters(ev.Tools, d.writeTools)
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

// writes reports whether tool writes files: the vocabulary names it, or
// the run declared it of kind edit.
func (d *Detector) writes(s *State, tool string) bool {
	return d.writeTools.Has(tool) || contains(s.Writers, tool)
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
	p := Pending{Call: ev.Call, Tool: ev.Tool, Write: d.writes(s, ev.Tool)}
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
	v := &s.Verify
	if d.shells.Is(ev.Tool, s.Shells) {
		if cmd, argv, ok := d.shells.Command(ev.Tool, ev.Args, s.Shells); ok {
			if argv != nil {
				cmd = joinArgv(argv)
			}
			reads := d.readCommand(s, &p, cmd)
			// A command that shows the failing test's file, and changes
			// nothing, reads it.
			if v.Failed && v.Quotes && reads && p.Effect == 0 && len(p.Written) == 0 && len(p.Removed) == 0 && mentions(cmd, v) {
				v.Read = true
			}
		}
	} else if p.Write {
		d.quoteArgs(&p, ev.Args)
	} else if v.Failed && v.Quotes && mentions(ev.Args+" "+ev.Path, v) {
		v.Read = true // a read_file of the failing test
	}
	s.addPending(p)
}

// quoteArgs notes the pieces of string literals a write tool's arguments
// hold, other than its paths: the text an editor writes or replaces.
func (d *Detector) quoteArgs(p *Pending, args string) {
	workspace.Strings(args, func(key string) bool { return !d.pathKeys.Has(key) }, func(_, text string) bool {
		p.quote(pieces(literals(text), nil))
		return len(p.Quoted) < MaxCallPaths
	})
}

func (d *Detector) result(s *State, ev *event.Event, out *processors.Out) {
	p, ok := s.takePending(ev.Call)
	if ev.Abandoned {
		return // the call never ran: it changed, produced and verified nothing
	}
	if !ok && ev.Tool != "" { // a result that says what it was
		p = Pending{Call: ev.Call, Tool: ev.Tool, Write: d.writes(s, ev.Tool)}
		if p.Write && ev.Path != "" {
			if rel, inside := workspace.NewRoot(s.Workspace).Rel(ev.Path); inside {
				p.Paths = []string{rel}
			}
		}
	}
	outcome := exitcode.Judge(exitcode.Kind(p.Kind), ev.Err, ev.Exit, ev.Out)
	reverts := p.Effect&EffectRevert != 0 && !outcome.Failed()
	if reverts {
		s.Reverted = true // before its own tests, if it runs any
	}
	if ev.Verify {
		d.verification(s, &p, ev, outcome)
		d.retest(s, outcome, out)
	}
	for _, path := range p.Created {
		if path != "" {
			s.addScratch(path) // even if a later command of its line failed
		}
	}
	if outcome.Failed() {
		return
	}
	for _, m := range p.Marks {
		s.addEdit(m)
	}
	for _, q := range p.Quoted {
		s.addQuoted(q)
	}
	changed := p.Write || p.Effect&EffectChange != 0 || len(p.Written) > 0
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
	if v := &s.Verify; v.Failed && v.Call != ev.Call {
		noteChanges(s, v, &p, changed && len(p.Written) == 0 || p.Effect&(EffectChange|EffectRevert) != 0)
	}
	cleanup := len(p.Removed) > 0 && allScratch(s, p.Removed)
	if changed || reverts || len(p.Removed) > 0 && !cleanup {
		s.Planning, s.Advised = 0, false
	}
	// The run's own files (a log it writes, a script it rewrites) are not
	// the work the tests test.
	own := !p.Write && p.Effect == 0 && ev.Changes == nil && allScratch(s, p.Written) && allScratch(s, p.Removed)
	if (changed || reverts || len(p.Removed) > 0) && !own {
		s.Retests = 0
	}
	if changed && p.Effect&EffectRevert == 0 || p.Effect&EffectRestore != 0 {
		s.Reverted = false // the work is back, or changed again
	}
}

// noteChanges records on the failed verification v what call p changed:
// its files, or, when it changes files it does not name, that the work
// changed. Removing a file the run created drops it from the changes.
func noteChanges(s *State, v *Verification, p *Pending, unnamed bool) {
	if unnamed {
		v.Stale = true
	}
	for _, path := range p.Written {
		if path == "" || len(v.Changed) == MaxCallPaths {
			v.Stale = true
			continue
		}
		if !contains(v.Changed, path) {
			v.Changed = append(v.Changed, path)
		}
	}
	for _, path := range p.Removed {
		switch i := indexOf(v.Changed, path); {
		case path == "":
			v.Stale = true
		case contains(s.Scratch, path) && i >= 0:
			v.Changed = append(v.Changed[:i], v.Changed[i+1:]...)
		case contains(s.Scratch, path):
		case i < 0 && len(v.Changed) < MaxCallPaths:
			v.Changed = append(v.Changed, path) // a file of the work removed
		case i < 0:
			v.Stale = true
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// allScratch reports whether every path is a file the run created.
func allScratch(s *State, paths []string) bool {
	for _, p := range paths {
		if p == "" || !contains(s.Scratch, p) {
			return false
		}
	}
	return true
}

// verification judges a verifying result. A verification that could not
// run (no test runner, no tests), or whose output blames the machine
// (exitcode.Environmental), is no verdict on the work; any other becomes
// the last verification. One that failed on reverted work (its own
// command reverted it, or an earlier one did and nothing changed since) is
// also a baseline: failures no larger on the same command later were there
// before the run's changes.
func (d *Detector) verification(s *State, p *Pending, ev *event.Event, outcome exitcode.Outcome) {
	failed := outcome == exitcode.Answer || outcome == exitcode.Failure
	if outcome == exitcode.NotRun {
		return
	}
	if _, env := exitcode.Environmental(ev.Out); failed && (env || exitcode.SetupOnly(ev.Out)) {
		return
	}
	s.Verify = Verification{Seen: true, Failed: failed, Call: ev.Call, Tool: p.Tool, Exit: ev.Exit, Err: ev.Err, Seq: ev.Seq}
	if !failed {
		return
	}
	v := &s.Verify
	v.Sig, v.Failures, v.Operands, v.Baseline = p.Sig, exitcode.Failures(ev.Out), p.Operands, s.Reverted
	v.Quotes = quotes(ev.Out, s.Quoted)
	if v.Baseline {
		s.addBaseline(Baseline{Sig: v.Sig, Failures: v.Failures})
	}
}

// retest counts a test run: one whose tests failed (exitcode.Answer) on
// work that has not changed since the last such run adds to the streak,
// one that passed ends it. The streak is advised at RetestAdvise and
// stopped at RetestStop. A test run that could not run, or failed as a
// command, is the loop guard's mistake to count, and leaves the streak
// as it is.
func (d *Detector) retest(s *State, outcome exitcode.Outcome, out *processors.Out) {
	switch outcome {
	case exitcode.Success:
		s.Retests = 0
		return
	case exitcode.Answer:
		s.Retests++
	default:
		return
	}
	n := s.Retests
	switch {
	case d.p.RetestStop > 0 && n >= d.p.RetestStop:
		out.Stop(event.ReasonTooManyMistakes, event.StatusFailed,
			fmt.Sprintf("%d test runs in a row failed with no change to the work between them", n),
			processors.Count("failing_test_runs", n)).Rule = RuleRetest
	case d.p.RetestAdvise > 0 && n == d.p.RetestAdvise:
		out.Advise(event.Steer{Kind: event.SteerReadErrors},
			fmt.Sprintf("%d test runs in a row failed with no change to the work between them; running them again answers the same: read the failures and change something first", n),
			processors.Count("failing_test_runs", n)).Rule = RuleRetest
	}
}

// RuleRetest names the decisions about failing test runs on unchanged
// work in Decision.Rule.
const RuleRetest = "retest"

// joinArgv returns an argument vector as a command line.
func joinArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = shell.Quote(w)
	}
	return strings.Join(q, " ")
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
	// A failure is the verdict on the claim unless the work changed since,
	// it checks what the run changed on purpose and the run read it, or
	// it was there on the baseline too. A failure on reverted work with
	// nothing changed since is the verdict: the work claimed is the
	// reverted one.
	v.Failed = v.Failed && !v.changed() && !(v.Quotes && v.Read) && (v.Baseline || !s.preexisting(&v))
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
