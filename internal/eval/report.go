package eval

import (
	"slices"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Report is what the guards did to a set of runs, by outcome label.
type Report struct {
	// Runs is the number of runs evaluated.
	Runs int `json:"runs"`
	// Invalid is the number of events left out because they break the wire
	// contract (guard-consumer dead-letters them).
	Invalid int `json:"invalid,omitempty"`
	// Labels are the outcome labels with their totals: "resolved" first,
	// then "unresolved", then the others in alphabetical order.
	Labels []Label `json:"labels"`
	// Rows count, per label, the runs each kind of decision touched and
	// how often it came: first a row per decision kind (Key "stop", ...),
	// then a row per key (see Key), in the order stop, reject, repair,
	// defer, advise, pressure.
	Rows []Row `json:"rows"`
	// Stops are the runs that were stopped, in the order evaluated.
	Stops []Stop `json:"stops"`
	// Examples show each key firing, up to Options.Examples per key, from
	// different runs.
	Examples []Example `json:"examples"`
	// Recall is the outcome of fault injection, when it was asked for.
	Recall []Recall `json:"recall,omitempty"`
	// Shown are every decision whose key starts with Options.Show, in the
	// order they came.
	Shown []Example `json:"shown,omitempty"`
}

// Label is the totals of the runs with one outcome label.
type Label struct {
	Label string `json:"label"`
	Runs  int    `json:"runs"`
	Steps int64  `json:"steps"`
	Cost  int64  `json:"cost"` // micro-units
}

// Row is one kind of decision, counted per label, in the order of
// Report.Labels.
type Row struct {
	Key    string  `json:"key"`
	Counts []Count `json:"counts"`
}

// Count is how often a kind of decision came in the runs of one label.
type Count struct {
	Runs  int     `json:"runs"`  // runs it touched
	Times int     `json:"times"` // decisions
	Share float64 `json:"share"` // Runs over the label's runs
}

// Stop is a run a guard stopped.
type Stop struct {
	Run   string `json:"run"`
	Label string `json:"label"`
	Key   string `json:"key"`
	Msg   string `json:"msg"`
	// Step is the number of steps the run had taken when it was stopped,
	// and Steps the number it took in the recording.
	Step  int64 `json:"step"`
	Steps int64 `json:"steps"`
	// SavedSteps and SavedCost are the steps, and their cost in
	// micro-units, that the recording took after the stop.
	SavedSteps int64 `json:"saved_steps"`
	SavedCost  int64 `json:"saved_cost"`
}

// Example is a decision with the events that led to it.
type Example struct {
	Key   string `json:"key"`
	Run   string `json:"run"`
	Label string `json:"label"`
	Step  int64  `json:"step"`
	Msg   string `json:"msg"`
	// Events are the event that drew the decision and those just before
	// it, one line each, oldest first.
	Events []string `json:"events"`
}

// Options tune an Evaluator.
type Options struct {
	// Examples is the number of examples kept per key.
	Examples int
	// Context is the number of events shown before the one that drew an
	// example's decision.
	Context int
	// Show, if set, keeps every decision whose key starts with it, such
	// as "advise path_escape", with its events.
	Show string
}

// DefaultOptions keeps 3 examples per key, each with the 4 events before.
func DefaultOptions() Options { return Options{Examples: 3, Context: 4} }

// Evaluator replays runs through a chain and counts what the guards did.
// It is not safe for concurrent use.
type Evaluator struct {
	chain    *processors.Chain
	opts     Options
	runs     int
	invalid  int
	labels   map[string]*Label
	counts   map[string]map[string]*Count // key -> label -> count
	stops    []Stop
	examples map[string][]Example
	shown    []Example
}

// New returns an Evaluator that replays runs through c.
func New(c *processors.Chain, opts Options) *Evaluator {
	return &Evaluator{chain: c, opts: opts, labels: map[string]*Label{}, counts: map[string]map[string]*Count{}, examples: map[string][]Example{}}
}

// Add replays one run's events (see Replay) and counts its decisions under
// label, and returns the trace.
func (e *Evaluator) Add(run, label string, events []event.Event) Trace {
	t := Replay(e.chain, events)
	e.runs++
	e.invalid += t.Invalid
	l := e.labels[label]
	if l == nil {
		l = &Label{Label: label}
		e.labels[label] = l
	}
	l.Runs++
	var steps, cost int64
	for i := range events {
		if events[i].Kind == event.KindStep {
			steps++
			cost += events[i].Cost
		}
	}
	l.Steps += steps
	l.Cost += cost

	seen := map[string]bool{}
	var step int64
	for i := range t.Events {
		if t.Events[i].Kind == event.KindStep {
			step++
		}
		for j := range t.Decisions[i] {
			d := &t.Decisions[i][j]
			key := Key(d)
			if key == "" {
				continue
			}
			kind := d.Kind.String()
			for _, k := range []string{kind, key} {
				c := e.count(k, label)
				c.Times++
				if !seen[k] {
					seen[k] = true
					c.Runs++
				}
			}
			if len(e.examples[key]) < e.opts.Examples && !slices.ContainsFunc(e.examples[key], func(x Example) bool { return x.Run == run }) {
				e.examples[key] = append(e.examples[key], e.example(&t, i, d, key, run, label, step))
			}
			if e.opts.Show != "" && strings.HasPrefix(key, e.opts.Show) {
				e.shown = append(e.shown, e.example(&t, i, d, key, run, label, step))
			}
			if d.Kind == event.Stop {
				s := Stop{Run: run, Label: label, Key: key, Msg: d.Msg, Step: step, Steps: steps}
				s.SavedSteps, s.SavedCost = saved(events, t.Events[i].Seq)
				e.stops = append(e.stops, s)
			}
		}
	}
	return t
}

func (e *Evaluator) count(key, label string) *Count {
	m := e.counts[key]
	if m == nil {
		m = map[string]*Count{}
		e.counts[key] = m
	}
	c := m[label]
	if c == nil {
		c = &Count{}
		m[label] = c
	}
	return c
}

func (e *Evaluator) example(t *Trace, i int, d *event.Decision, key, run, label string, step int64) Example {
	x := Example{Key: key, Run: run, Label: label, Step: step, Msg: d.Msg}
	for k := max(0, i-e.opts.Context); k <= i; k++ {
		x.Events = append(x.Events, describe(&t.Events[k]))
	}
	return x
}

// saved returns the steps, and their cost, that events hold after the
// event with sequence seq.
func saved(events []event.Event, seq int64) (steps, cost int64) {
	for i := range events {
		if events[i].Seq > seq && events[i].Kind == event.KindStep {
			steps++
			cost += events[i].Cost
		}
	}
	return steps, cost
}

// kindOrder orders rows: stops first, pressure last.
var kindOrder = []string{"stop", "reject", "repair", "defer", "advise", "pressure"}

// Report returns what the evaluator counted so far.
func (e *Evaluator) Report() Report {
	r := Report{Runs: e.runs, Invalid: e.invalid, Stops: slices.Clone(e.stops), Shown: slices.Clone(e.shown)}
	for _, l := range e.labels {
		r.Labels = append(r.Labels, *l)
	}
	slices.SortFunc(r.Labels, func(a, b Label) int { return compareLabels(a.Label, b.Label) })
	keys := make([]string, 0, len(e.counts))
	for k := range e.counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	for _, k := range keys {
		row := Row{Key: k, Counts: make([]Count, len(r.Labels))}
		for i, l := range r.Labels {
			if c := e.counts[k][l.Label]; c != nil {
				row.Counts[i] = *c
				row.Counts[i].Share = float64(c.Runs) / float64(l.Runs)
			}
		}
		r.Rows = append(r.Rows, row)
	}
	for _, k := range keys {
		r.Examples = append(r.Examples, e.examples[k]...)
	}
	return r
}

func compareLabels(a, b string) int {
	rank := func(s string) int {
		switch s {
		case "resolved":
			return 0
		case "unresolved":
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// compareKeys orders keys by kind (see kindOrder), a kind's own row
// before its keys, and keys alphabetically.
func compareKeys(a, b string) int {
	ka, _, _ := strings.Cut(a, " ")
	kb, _, _ := strings.Cut(b, " ")
	ia, ib := slices.Index(kindOrder, ka), slices.Index(kindOrder, kb)
	if ia != ib {
		return ia - ib
	}
	return strings.Compare(a, b)
}

// Row returns the row with key, or nil.
func (r *Report) Row(key string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Key == key {
			return &r.Rows[i]
		}
	}
	return nil
}

// Share returns the share of label's runs that key touched.
func (r *Report) Share(key, label string) float64 {
	row := r.Row(key)
	if row == nil {
		return 0
	}
	for i, l := range r.Labels {
		if l.Label == label {
			return row.Counts[i].Share
		}
	}
	return 0
}
