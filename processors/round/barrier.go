package round

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Name is the processor's name.
const Name = "round"

// Rules of settled decisions that did not wait for every result.
const (
	RuleWait    = "wait"     // the round's wait ran out
	RuleMaxOpen = "max_open" // too many rounds were open
)

// TimerName returns the name of the timer of the round announced by the
// event at seq: "round-<seq>".
func TimerName(seq int64) string { return "round-" + strconv.FormatInt(seq, 10) }

// Barrier is the round-settling processor.
type Barrier struct {
	p Policy
}

// New returns a barrier with policy p, which must be valid.
func New(p Policy) *Barrier { return &Barrier{p: p} }

// Name returns "round".
func (*Barrier) Name() string { return Name }

// NewState returns the state of a run with no open round.
func (*Barrier) NewState() processors.State { return &State{} }

// Apply opens rounds, records their results, and settles them.
func (b *Barrier) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindRound:
		b.open(s, ev, out)
	case event.KindResult:
		b.result(s, ev, out)
	case event.KindTimer:
		b.timer(s, ev, out)
	}
}

func (b *Barrier) open(s *State, ev *event.Event, out *processors.Out) {
	if len(ev.Calls) == 0 || len(ev.Calls) > event.MaxRoundCalls {
		return // breaks the contract; the runner dead-letters it
	}
	calls := slices.Clone(ev.Calls)
	slices.SortFunc(calls, CompareIDs)
	calls = slices.Compact(calls)
	for len(s.Open) >= max(b.p.MaxOpen, 1) {
		settle(&s.Open[0], out, RuleMaxOpen,
			fmt.Sprintf("round #%d settled early: with round #%d, more than %d rounds would be open", s.Open[0].Seq, ev.Seq, b.p.MaxOpen))
		s.Open = slices.Delete(s.Open, 0, 1)
	}
	r := Round{Seq: ev.Seq, Calls: calls, Got: make([]uint64, (len(calls)+63)/64)}
	if ev.Wait > 0 {
		r.Wait = ev.Wait
		out.SetTimer(TimerName(ev.Seq), ev.Wait, ev.Seq)
	}
	s.Open = append(s.Open, r)
}

func (b *Barrier) result(s *State, ev *event.Event, out *processors.Out) {
	settleCall(s, ev.Call, false, out)
}

// Refused counts the refused call ev as settled in the open rounds that
// list it: it will never have a result.
func (b *Barrier) Refused(st processors.State, ev *event.Event, out *processors.Out) {
	settleCall(st.(*State), ev.Call, true, out)
}

// settleCall records that call is settled, by a result or a refusal, in
// every open round that lists it, and settles the rounds it completes,
// oldest first.
func settleCall(s *State, call string, refused bool, out *processors.Out) {
	for i := 0; i < len(s.Open); {
		r := &s.Open[i]
		k, ok := slices.BinarySearchFunc(r.Calls, call, CompareIDs)
		if !ok || r.has(k) {
			i++
			continue
		}
		r.mark(k)
		if refused {
			r.refuse(k)
		}
		if r.In++; r.In < len(r.Calls) {
			i++
			continue
		}
		msg := fmt.Sprintf("all %d results of round #%d are in", len(r.Calls), r.Seq)
		if r.Refused != nil {
			msg = fmt.Sprintf("all %d calls of round #%d are settled", len(r.Calls), r.Seq)
		}
		settle(r, out, "", msg)
		s.Open = slices.Delete(s.Open, i, i+1)
	}
}

func (b *Barrier) timer(s *State, ev *event.Event, out *processors.Out) {
	if !strings.HasPrefix(ev.Timer, "round-") {
		return // another processor's
	}
	for i := range s.Open {
		r := &s.Open[i]
		if r.Seq != ev.Gen || ev.Timer != TimerName(r.Seq) {
			continue
		}
		settle(r, out, RuleWait, fmt.Sprintf("round #%d waited %d ms", r.Seq, r.Wait))
		s.Open = slices.Delete(s.Open, i, i+1)
		return
	}
	// The round settled before its timer fired: nothing to do.
}

// settle emits r's settled decision; the caller removes r. msg says why it
// settled; the calls are appended to it.
func settle(r *Round, out *processors.Out, rule, msg string) {
	missing, refused := r.missing(), r.refused()
	if len(missing) > 0 {
		msg += fmt.Sprintf("; %d of %d results are in; missing: %s", r.In-len(refused), len(r.Calls)-len(refused), listIDs(missing))
	} else {
		msg += ": " + listIDs(r.Calls)
	}
	counts := []event.Counter{processors.Count("round", r.Seq), processors.Count("calls", len(r.Calls)), processors.Count("missing", len(missing))}
	if len(refused) > 0 {
		msg += "; refused, without a result: " + listIDs(refused)
		counts = append(counts, processors.Count("refused", len(refused)))
	}
	d := out.Emit(event.Settled, msg, counts...)
	d.Call, d.Rule = "", rule // about the round, not the event that completed it
	d.Calls, d.Missing, d.Refused = slices.Clone(r.Calls), missing, refused
	if r.Wait > 0 && rule != RuleWait {
		out.CancelTimer(TimerName(r.Seq))
	}
}

// listIDs lists ids for a message, the first 16 of them at most.
func listIDs(ids []string) string {
	const show = 16
	if len(ids) <= show {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids[:show], " ") + fmt.Sprintf(" and %d more", len(ids)-show)
}
