package loop

import (
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/canon"
	"github.com/guardstream/guardstream/internal/exitcode"
	"github.com/guardstream/guardstream/internal/workspace"
	"github.com/guardstream/guardstream/processors"
)

// Name is the detector's processor name.
const Name = "loop"

// Detector is the loop-detection processor: it runs a policy's rules.
type Detector struct {
	shells   workspace.Shells
	rules    []rule
	exempt   []string
	argSets  [][]uint64 // the lists of argument keys left out of identities, as key hashes
	triggers triggerSet // every trigger some rule resets or re-arms on
	seen     int        // distinct tools to remember: the highest MinTools
}

// New returns a detector with policy p, which must be valid.
func New(p Policy) *Detector {
	d := &Detector{shells: p.Vocabulary.Shells(), exempt: slices.Clone(p.Exempt)}
	d.rules, d.argSets = compile(p)
	for _, r := range d.rules {
		d.triggers |= r.resetOn | r.rearmOn
		d.seen = max(d.seen, r.minTools)
	}
	return d
}

// Name returns "loop".
func (*Detector) Name() string { return Name }

// NewState returns the state of a fresh run.
func (d *Detector) NewState() processors.State { return &State{} }

// item is one thing a rule counts.
type item struct {
	key  uint64 // the rule's identity of the item
	call uint64 // calls and results: the identity without the result
	tool string // calls and results: the tool
	th   uint64 // the tool's hash
	full uint64 // calls and results: the full call signature
}

// firing is a ladder step a rule's count reached, or the stop that
// follows an inject_steer.
type firing struct {
	rule     int
	step     Step
	n        int
	period   int
	it       item
	followUp bool
}

// judgement collects what an event's items fired, before any is
// published: the most severe refusal or stop wins alone.
type judgement struct {
	fs [MaxRules]firing
	n  int
}

// Apply counts the event's items, applies its resets and re-arms, and
// publishes what the rules decide.
func (d *Detector) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	var j judgement
	switch ev.Kind {
	case event.KindRunStart:
		s.Declared, s.Shells = len(ev.Tools), d.shells.Declared(ev.Tools)
	case event.KindCall:
		d.call(s, ev, &j, out)
		return
	case event.KindResult:
		d.result(s, ev, &j)
	case event.KindStep:
		d.closeRound(s, &j)
		d.trigger(s, bitStep)
		if ev.Turn > s.Turn {
			s.Turn = ev.Turn
			d.trigger(s, bitTurn)
		}
		if ev.TextDig != "" {
			d.countAll(s, &j, CountMessages, item{key: nonZero(xxhash.Sum64String(ev.TextDig))})
		}
	case event.KindTurn:
		d.closeRound(s, &j)
		s.Turn = max(s.Turn+1, ev.Turn)
		d.trigger(s, bitTurn)
	case event.KindResume:
		d.trigger(s, bitResume)
	case event.KindCompact:
		d.trigger(s, bitCompaction)
		d.countAll(s, &j, CountCompactions, item{key: 1})
	}
	d.publish(s, &j, ev, out)
}

func (d *Detector) call(s *State, ev *event.Event, j *judgement, out *processors.Out) {
	if slices.Contains(d.exempt, ev.Tool) {
		return
	}
	ks := callKeys(ev.Tool, ev.Args, ev.Path, d.argSets)
	if d.refused(s, ev, &ks, out) {
		return
	}
	s.see(ks.tool, d.seen)
	if s.Round.Calls == 0 {
		s.Rounds++
	}
	d.trigger(s, bitCall)
	for i := range d.rules {
		r := &d.rules[i]
		if r.count == CountCalls && r.sees(ev.Tool) && r.targets(ks.path) {
			key := ks.of(r)
			d.count(s, i, j, item{key: key, call: key, tool: ev.Tool, th: ks.tool, full: ks.full(r)}, true)
		}
	}
	if d.publish(s, j, ev, out) {
		return // refused or stopped: the call will not run
	}
	for i := range d.rules {
		if r := &d.rules[i]; r.count == CountRounds && r.fields != 0 && r.sees(ev.Tool) {
			rs := s.rule(i)
			rs.Acc += ks.of(r)
			rs.AccN++
		}
	}
	s.Round.Calls++
	pc := Pending{Call: ev.Call, Tool: ev.Tool, Args: ks.argsUnder(0), Path: ks.path, Exit: d.exitKind(s, ev)}
	for k := 1; k < len(d.argSets); k++ {
		pc.More[k-1] = ks.argsUnder(k)
	}
	s.addPending(pc)
}

// exitKind returns what the command of a call of a shell tool is, for
// reading its exit status, or 0 if the call runs no command.
func (d *Detector) exitKind(s *State, ev *event.Event) uint8 {
	cmd, argv, ok := d.shells.Command(ev.Tool, ev.Args, s.Shells)
	switch {
	case !ok:
		return 0
	case argv != nil:
		return uint8(exitcode.OfArgv(argv))
	}
	return uint8(exitcode.Of(cmd))
}

// refused rejects a call of a signature or tool a rule refused, and
// reports whether it did.
func (d *Detector) refused(s *State, ev *event.Event, ks *keys, out *processors.Out) bool {
	for i := range s.Rules {
		if i >= len(d.rules) || len(s.Rules[i].Refused) == 0 {
			continue
		}
		r := &d.rules[i]
		if !r.sees(ev.Tool) {
			continue
		}
		refused := s.Rules[i].Refused
		what := ""
		switch {
		case slices.Contains(refused, ks.of(r)):
			what = "this " + ev.Tool + " call (signature " + SigString(ks.of(r)) + ")"
		case slices.Contains(refused, toolKey(ks.tool)):
			what = ev.Tool
		default:
			continue
		}
		st := d.stepOf(r, ev.Tool, DoRefuse)
		out.Reject(r.reasonFor(&st), what+" is refused for the rest of the run: it kept repeating (rule "+r.name+")").Rule = r.name
		return true
	}
	return false
}

func (d *Detector) result(s *State, ev *event.Event, j *judgement) {
	pc, ok := s.takePending(ev.Call)
	if !ok {
		return // a call the detector did not count: exempt, refused, or forgotten
	}
	if counted, failed := outcome(ev, pc); counted {
		d.trigger(s, bitResult)
		d.countResult(s, ev, pc, failed, j)
		s.Round.Results++
		if failed {
			s.Round.Errors++
		}
	}
	if len(s.Pending) == 0 {
		d.closeRound(s, j)
	}
}

// countResult counts a result that ran for the rules that count results,
// and judges progress for the calls rules that reset on it.
func (d *Detector) countResult(s *State, ev *event.Event, pc Pending, failed bool, j *judgement) {
	ks := pendingKeys(&pc, len(d.argSets))
	for i := range d.rules {
		r := &d.rules[i]
		progress := r.count == CountCalls && r.resetOn.has(OnProgress)
		if r.count != CountResults && !progress || !r.sees(pc.Tool) || !r.targets(ks.path) {
			continue
		}
		v := r.variantFor(pc.Tool)
		call := ks.of(r)
		switch {
		case r.count == CountResults:
			key := call
			if v.eq != ResultNone {
				key = nonZero(canon.Combine(call, resultKey(v.eq, v.masks, ev)))
			}
			counted := r.only == "" || (r.only == OnlyFailed) == failed
			d.count(s, i, j, item{key: key, call: call, tool: pc.Tool, th: ks.tool, full: ks.full(r)}, counted)
		default:
			d.progress(s.rule(i), r, call, v, ev)
		}
	}
}

// progress restarts a calls rule's streak at the call whose result
// differs from the previous result of the same call: polling that
// advances is not a loop.
func (d *Detector) progress(rs *RuleState, r *rule, call uint64, v *variant, ev *event.Event) {
	if rs.N == 0 || call != rs.last() {
		return
	}
	h := resultKey(v.eq, v.masks, ev)
	if rs.HasResult && h != rs.Result && rs.N > 1 {
		rs.brk()
		rs.N, _, rs.T = rs.consecutive(call, r.minCycle, r.maxCycle)
	}
	rs.Result, rs.HasResult = h, true
}

// closeRound ends the open round, if it had results, and counts it for
// the rules that count rounds.
func (d *Detector) closeRound(s *State, j *judgement) {
	rnd := s.Round
	s.Round, s.Pending = Round{}, s.Pending[:0]
	for i := range d.rules {
		r := &d.rules[i]
		if r.count != CountRounds {
			continue
		}
		rs := s.rule(i)
		key := uint64(1)
		if r.fields != 0 {
			key = nonZero(canon.Combine(tagRound, rs.Acc, uint64(rs.AccN)))
		}
		rs.Acc, rs.AccN = 0, 0
		if rnd.Results == 0 {
			continue // a round without results neither counts nor breaks a streak
		}
		failed := rnd.Errors == rnd.Results
		d.count(s, i, j, item{key: key}, r.only == "" || (r.only == OnlyFailed) == failed)
	}
}

// countAll counts it for every rule that counts c.
func (d *Detector) countAll(s *State, j *judgement, c Counted, it item) {
	for i := range d.rules {
		if d.rules[i].count == c {
			d.count(s, i, j, it, true)
		}
	}
}

// trigger applies t, one trigger's bit, to the rules that reset or re-arm
// on it.
func (d *Detector) trigger(s *State, t triggerSet) {
	if d.triggers&t == 0 {
		return
	}
	for i := range d.rules {
		switch r := &d.rules[i]; {
		case r.resetOn&t != 0:
			s.rule(i).reset()
		case r.rearmOn&t != 0:
			s.rule(i).Rearm = true
		}
	}
}

// The bits of the triggers events carry.
var (
	bitTurn       = bitOf(OnTurn)
	bitResume     = bitOf(OnResume)
	bitCompaction = bitOf(OnCompaction)
	bitCall       = bitOf(OnCall)
	bitResult     = bitOf(OnResult)
	bitStep       = bitOf(OnStep)
)

// count adds an item to the i-th rule's window and judges the new count.
// An item the rule does not count (counted false) breaks a consecutive
// streak and takes a place in a sliding window.
func (d *Detector) count(s *State, i int, j *judgement, it item, counted bool) {
	r := &d.rules[i]
	rs := s.rule(i)
	if !counted {
		switch r.window {
		case WindowConsecutive:
			rs.brk()
		case WindowSliding:
			rs.sliding(0, r.size)
		}
		rs.Last = 0
		return
	}
	var u int64
	switch r.unit {
	case UnitRound:
		u = s.Rounds
	case UnitTurn:
		u = s.Turn + 1 // a run that reports no turns is one turn
	}
	same := rs.N > 0 && it.key == rs.last()
	switch {
	case !same:
		rs.Varied, rs.HasResult = false, false
	case r.varied:
		rs.Varied = rs.Varied || it.full != rs.Full
	}
	if r.varied {
		rs.Full = it.full
	}
	if same && u != 0 && u == rs.U {
		return // a repeat within the round or turn counts once
	}
	rs.U = u
	prev, n, period, grew := rs.N, 0, 1, true
	switch r.window {
	case WindowConsecutive:
		var items int
		n, period, items = rs.consecutive(it.key, r.minCycle, r.maxCycle)
		grew = n > prev
		if r.maxCycle > 1 { // a cycle can grow without its repetitions growing
			grew, rs.T = items > rs.T, items
		}
		if r.count == CountResults && r.maxCycle > 1 {
			rs.pushCall(it.call, r.maxCycle)
		}
		if n < prev {
			prev = 0 // a new pattern
		}
	case WindowSliding:
		n = rs.sliding(it.key, r.size)
		prev = n - 1
	case WindowRun:
		n = rs.run(it.key)
		prev = n - 1
	}
	rs.N = n
	if r.window != WindowConsecutive {
		rs.Last = it.key
	}
	if rs.Rearm {
		prev, rs.Rearm = 0, false
	}
	d.judge(s, i, j, it, prev, n, period, grew)
}

// judge finds the ladder step the count reached, if any. After an
// inject_steer, an item that carries the pattern on (grew) at or above
// its count stops the run.
func (d *Detector) judge(s *State, i int, j *judgement, it item, prev, n, period int, grew bool) {
	r, rs := &d.rules[i], s.rule(i)
	if rs.Inject > 0 {
		if n > rs.Inject || n == rs.Inject && grew && r.window == WindowConsecutive {
			j.add(firing{rule: i, n: n, period: period, it: it, followUp: true, step: d.stepOf(r, it.tool, DoInjectSteer)})
			return
		}
		if n < rs.Inject {
			rs.Inject = 0
		}
	}
	if r.varied && !rs.Varied || r.minTools > 0 && s.tools() < r.minTools {
		return
	}
	best := -1
	for k, st := range r.variantFor(it.tool).ladder {
		if prev < st.At && st.At <= n || st.Every && n >= st.At {
			best = k
		}
	}
	if best >= 0 {
		j.add(firing{rule: i, step: r.variantFor(it.tool).ladder[best], n: n, period: period, it: it})
	}
}

// stepOf returns the first step of r's ladder for tool that does do: the
// inject_steer whose reason its follow-up stop carries, the refusal whose
// reason later refused calls carry.
func (d *Detector) stepOf(r *rule, tool string, do Do) Step {
	for _, st := range r.variantFor(tool).ladder {
		if st.Do == do {
			return st
		}
	}
	return Step{Do: do}
}

func (j *judgement) add(f firing) {
	if j.n < len(j.fs) {
		j.fs[j.n] = f
		j.n++
	}
}

// severity orders firings: a stop over a refusal over advice.
func (f *firing) severity() int {
	switch {
	case f.followUp, f.step.Do == DoStop, f.step.Do == DoCompleteWithWarning:
		return 3
	case f.step.Do == DoReject, f.step.Do == DoInjectSteer, f.step.Do == DoRefuse:
		return 2
	}
	return 1
}

// publish turns the judgement into decisions and reports whether the
// event's call was refused or the run stopped. The most severe refusal or
// stop is published alone; otherwise every advice is, in rule order.
func (d *Detector) publish(s *State, j *judgement, ev *event.Event, out *processors.Out) bool {
	pick := -1
	for k := range j.n {
		f := &j.fs[k]
		final := f.severity() == 3 || f.severity() == 2 && ev.Kind == event.KindCall
		if final && (pick < 0 || f.severity() > j.fs[pick].severity()) {
			pick = k
		}
	}
	if pick >= 0 {
		d.decide(s, &j.fs[pick], ev, out)
		return true
	}
	for k := range j.n {
		d.decide(s, &j.fs[k], ev, out)
	}
	return false
}
