package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
)

// Recall is how well the guards caught one fault class injected into
// real runs.
type Recall struct {
	Fault Fault `json:"fault"`
	// Rule is the decision that counts as catching the fault, and Promise
	// the number of injected calls by which it must come, with the policy
	// setting it comes from. A Promise of 0 means the rule is off.
	Rule         string `json:"rule"`
	Promise      string `json:"promise"`
	PromiseCalls int    `json:"promise_calls"`
	// Injected counts the runs the fault was injected into; NotReached
	// those of them stopped before the fault, which recall leaves out.
	Injected   int `json:"injected"`
	NotReached int `json:"not_reached"`
	// Caught came in time, Late after the promise, Missed never.
	Caught int `json:"caught"`
	Late   int `json:"late"`
	Missed int `json:"missed"`
	// LatencySum and MaxLatency are over the caught faults, in injected
	// calls up to the one that drew the catch.
	LatencySum int `json:"latency_sum"`
	MaxLatency int `json:"max_latency"`
	// Misses are a few runs whose fault was missed or caught late, with
	// what the guards decided on the injected events.
	Misses []string `json:"misses,omitempty"`
}

// Recall returns the share of reached faults caught in time.
func (r *Recall) Recall() float64 {
	n := r.Injected - r.NotReached
	if n == 0 {
		return 0
	}
	return float64(r.Caught) / float64(n)
}

// MeanLatency returns the mean number of injected calls to a catch.
func (r *Recall) MeanLatency() float64 {
	if r.Caught == 0 {
		return 0
	}
	return float64(r.LatencySum) / float64(r.Caught)
}

// Inject returns a copy of a run's events with fault f put in at a point
// drawn from seed, the run going on as recorded after it (or ending in
// the false claim, for FaultFalseSuccess), under policy p. It returns
// false when the run cannot carry the fault: it has fewer than two steps,
// or no shell tool for a fault that needs one.
func (f Fault) Inject(events []event.Event, p guard.Policy, seed uint64) ([]event.Event, bool) {
	in, ok := f.inject(events, &p, rand.New(rand.NewPCG(seed, uint64(slices.Index(Faults(), f)))))
	return in.events, ok
}

// Injector injects faults into runs and replays them through an
// evaluator's chain.
type Injector struct {
	policy  guard.Policy
	seed    uint64
	runs    int
	recalls []Recall
	faults  []Fault
	proms   []promise
	index   []int // each fault's position in Faults(), which seeds it
}

// NewInjector returns an injector of faults under policy p, the policy the
// chain was built from, drawing its points of injection from seed.
func NewInjector(p guard.Policy, seed uint64, faults ...Fault) *Injector {
	if len(faults) == 0 {
		faults = Faults()
	}
	in := &Injector{policy: p, seed: seed, faults: faults}
	for _, f := range faults {
		in.index = append(in.index, slices.Index(Faults(), f))
		pr := f.promise(&in.policy)
		in.proms = append(in.proms, pr)
		in.recalls = append(in.recalls, Recall{Fault: f, Rule: pr.rule, PromiseCalls: pr.calls,
			Promise: fmt.Sprintf("%d (%s)", pr.calls, pr.says)})
	}
	return in
}

// Add injects every fault class, once each, into a copy of the run's
// events at a point drawn from the seed and the run's position, and
// replays each through e's chain.
func (in *Injector) Add(e *Evaluator, run string, events []event.Event) {
	n := in.runs
	in.runs++
	for i, f := range in.faults {
		rng := rand.New(rand.NewPCG(in.seed, uint64(n)<<8|uint64(in.index[i])))
		inj, ok := f.inject(events, &in.policy, rng)
		if !ok {
			continue
		}
		in.measure(&in.recalls[i], in.proms[i], run, inj, Replay(e.chain, inj.events))
	}
}

// measure judges one injected run.
func (in *Injector) measure(r *Recall, pr promise, run string, inj injected, t Trace) {
	r.Injected++
	calls, latency := 0, 0
	reached := false
	var seen []string
	for i := range t.Events {
		ev := &t.Events[i]
		if ev.Seq < inj.first {
			continue
		}
		reached = true
		if n, ok := inj.calls[ev.Call]; ok && ev.Kind == event.KindCall {
			calls = n
		}
		for j := range t.Decisions[i] {
			d := &t.Decisions[i][j]
			if k := Key(d); k != "" && len(seen) < 6 {
				seen = append(seen, fmt.Sprintf("#%d %s", ev.Seq, k))
			}
			if latency == 0 && pr.catch != nil && pr.catch(d) {
				latency = max(calls, 1)
				if pr.atEnd {
					latency = 1
				}
			}
		}
		if latency > 0 {
			break
		}
	}
	switch {
	case !reached:
		r.NotReached++
		return
	case latency > 0 && latency <= pr.calls:
		r.Caught++
		r.LatencySum += latency
		r.MaxLatency = max(r.MaxLatency, latency)
		return
	case latency > 0:
		r.Late++
	default:
		r.Missed++
	}
	if len(r.Misses) < 5 {
		r.Misses = append(r.Misses, fmt.Sprintf("%s (injected at #%d: %s): %v", run, inj.first, firstCall(inj), seen))
	}
}

// firstCall returns the arguments of the first injected call, abridged.
func firstCall(inj injected) string {
	for i := range inj.events {
		if ev := &inj.events[i]; ev.Kind == event.KindCall && inj.calls[ev.Call] == 1 {
			if len(ev.Args) > 120 {
				return ev.Args[:117] + "..."
			}
			return ev.Args
		}
	}
	return ""
}

// Recalls returns the recall of each fault class so far.
func (in *Injector) Recalls() []Recall {
	out := make([]Recall, len(in.recalls))
	copy(out, in.recalls)
	return out
}
