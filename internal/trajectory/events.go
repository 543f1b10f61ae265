package trajectory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/guardstream/guardstream/event"
)

// Mapping holds the choices a user integrating the recorded agent makes
// when it reports a run as wire events. What is not a choice is fixed:
//
//   - run_start carries the agent class (Run.Agent), the workspace root
//     (Run.Workspace) and every tool with its schema;
//   - each step is a step event with its number, tokens in and out, cost,
//     context and window, whether or not it made a call (a reply without a
//     valid action is a step with no call);
//   - each call is a call event with its id, tool, arguments (the JSON
//     text as the model produced it) and path, followed by its result: err
//     for a non-zero exit or a timeout, the exit code, the output as
//     recorded, verify for a test run, and chg when the recording has it;
//     a call that never returned has no result;
//   - run_end carries the claimed outcome.
type Mapping struct {
	// Tenant is the tenant id of every event.
	Tenant string
	// OneTurn reports every step as part of user turn 1. Left false, steps
	// report no turn, as an agent that knows nothing of turns would, and
	// the run counts as one long turn either way; set, the per-turn
	// limits (max_tool_rounds_per_turn) apply to it.
	OneTurn bool
	// BaseTS is the ts of the first event; each later event is a second
	// after the one before. Recordings hold no clock, and the guards read
	// time only from ts.
	BaseTS int64
}

// DefaultMapping returns the mapping guard-eval uses: tenant "eval", no
// turns reported, the first event at 2026-01-01T00:00:00Z.
func DefaultMapping() Mapping {
	return Mapping{Tenant: "eval", BaseTS: 1767225600000}
}

// Events returns the wire events of r under m. Each event's Seq is its
// index plus 1.
func (m Mapping) Events(r *Run) []event.Event {
	evs := make([]event.Event, 0, 2+len(r.Steps)+2*r.Calls())
	add := func(ev event.Event) {
		ev.V, ev.Tenant, ev.Run = event.Version, m.Tenant, RunID(r.Run)
		ev.Seq = int64(len(evs) + 1)
		ev.TS = m.BaseTS + int64(len(evs))*1000
		evs = append(evs, ev)
	}
	start := event.Event{Kind: event.KindRunStart, Agent: r.Agent, Workspace: r.Workspace}
	for _, t := range r.Tools {
		start.Tools = append(start.Tools, event.Schema{Name: t.Name, Schema: t.Schema, Kind: event.ToolKind(t.Kind)})
	}
	add(start)
	var turn int64
	if m.OneTurn {
		turn = 1
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		add(event.Event{Kind: event.KindStep, Step: s.I, Turn: turn, TokensIn: s.TokensIn, TokensOut: s.TokensOut,
			Cost: s.Cost, Context: s.Context, Window: s.Window})
		for _, c := range s.Calls {
			add(event.Event{Kind: event.KindCall, Call: c.ID, Tool: c.Tool, Args: c.Args, Path: c.Path})
			if c.Result == nil {
				continue
			}
			res := c.Result
			ev := event.Event{Kind: event.KindResult, Call: c.ID, Err: res.Err, Exit: res.Exit, Out: res.Out, Verify: res.Verify}
			if ch := res.Changes; ch != nil {
				ev.Changes = &event.Changes{Files: ch.Files, Lines: ch.Lines, Hunks: ch.Hunks, Paths: ch.Paths}
			}
			add(ev)
		}
	}
	status := event.Status(r.Claimed)
	if !status.Valid() {
		status = event.StatusFailed
	}
	add(event.Event{Kind: event.KindRunEnd, Status: status})
	return evs
}

// RunID returns name as a valid run id: every character the wire contract
// forbids in an id (".", "*", ">", whitespace, control characters) becomes
// "-", and the id is cut to event.MaxIDLen bytes.
func RunID(name string) string {
	if name == "" {
		return "run"
	}
	id := strings.Map(func(r rune) rune {
		if r == '.' || r == '*' || r == '>' || unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			return '-'
		}
		return r
	}, name)
	for len(id) > event.MaxIDLen {
		_, size := utf8.DecodeLastRuneInString(id)
		id = id[:len(id)-size]
	}
	return id
}
