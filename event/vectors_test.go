package event_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/vmihailenco/msgpack/v5"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the Go values in vectors_test.go")

const (
	vectorsFile = "testdata/vectors.json"
	schemaDir   = "testdata/schema"
)

// vector is one entry of testdata/vectors.json: the msgpack bytes of an
// event or a decision, in hex, and the same map as a JSON object.
type vector struct {
	Name string `json:"name"`
	Type string `json:"type"` // "event" or "decision"
	// Extra marks a vector whose map holds keys the contract does not
	// define: decoders ignore them, so re-encoding drops them.
	Extra bool            `json:"extra,omitempty"`
	Note  string          `json:"note,omitempty"`
	Hex   string          `json:"hex"`
	JSON  json.RawMessage `json:"json"`
}

// Values shared by the vectors: one run of tenant acme that starts on
// 2026-01-01T00:00:00Z, one event per second.
const (
	tenant = "acme"
	run    = "run-42"
	t0     = 1767225600000
)

// ev returns the envelope of the run's event of kind k at seq.
func ev(k event.Kind, seq int64) event.Event {
	return event.Event{V: event.Version, Kind: k, Tenant: tenant, Run: run, Seq: seq, TS: t0 + (seq-1)*1000}
}

// dec returns the envelope of a decision of kind k about the event at seq.
func dec(k event.DecisionKind, seq int64) event.Decision {
	return event.Decision{V: event.Version, Kind: k, Tenant: tenant, Run: run, Seq: seq, TS: t0 + (seq-1)*1000}
}

// source is how a vector is made: from a Go value through the package's
// encoder, or, for the vectors with unknown keys, from a map encoded by
// msgpack/v5 directly.
type source struct {
	name, note string
	event      *event.Event
	decision   *event.Decision
	raw        map[string]any // typ says whether it is an event or a decision
	typ        string
}

func evSrc(name, note string, e event.Event) source {
	return source{name: "event/" + name, note: note, event: &e}
}

func decSrc(name, note string, d event.Decision) source {
	return source{name: "decision/" + name, note: note, decision: &d}
}

const (
	sigRead = "1b7e5bb760b98528"
	sigEdit = "c0ffee00deadbeef"

	readSchema   = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`
	editSchema   = `{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}},"required":["path","old","new"],"additionalProperties":false}`
	bashSchema   = `{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer"}},"required":["command"]}`
	searchSchema = `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`
	planSchema   = `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["steps"]}`
	planDoc      = `{"steps":["read src/main.go","fix the comparison","run the tests"]}`
)

// Outputs too large to send inline: testOut has 4000 lines (144000
// bytes), logOut 500.
var (
	testOut = strings.Repeat("--- FAIL: TestCompare (0.00s)\n    main_test.go:12: got false, want true\n", 2000)
	logOut  = func() string {
		var b strings.Builder
		for i := 1; i <= 500; i++ {
			fmt.Fprintf(&b, "log line %d\n", i)
		}
		return b.String()
	}()
)

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	end := 0
	for range n {
		i := strings.IndexByte(s[end:], '\n')
		if i < 0 {
			return s
		}
		end += i + 1
	}
	return s[:end]
}

// lastLines returns the last n lines of s, which ends in a newline.
func lastLines(s string, n int) string {
	start := len(s) - 1
	for range n {
		i := strings.LastIndexByte(s[:start], '\n')
		if i < 0 {
			return s
		}
		start = i
	}
	return s[start+1:]
}

// sources returns the vectors, in the order testdata/vectors.json lists
// them.
func sources() []source {
	with := func(e event.Event, f func(*event.Event)) event.Event { f(&e); return e }
	withD := func(d event.Decision, f func(*event.Decision)) event.Decision { f(&d); return d }
	editArgs := `{"path":"src/main.go","old":"if a < b {","new":"if a <= b {"}`
	return []source{
		evSrc("run_start", "", with(ev(event.KindRunStart, 1), func(e *event.Event) { e.Agent = "coder" })),
		evSrc("run_start_no_agent", "every optional field left out", ev(event.KindRunStart, 1)),
		evSrc("step", "", with(ev(event.KindStep, 2), func(e *event.Event) { e.Step = 1 })),
		evSrc("step_zero", "step 0 is the zero value, so it is left out", ev(event.KindStep, 2)),
		evSrc("call", "only the required fields of a call", with(ev(event.KindCall, 3), func(e *event.Event) {
			e.Call, e.Tool = "c1", "list_files"
		})),
		evSrc("call_full", "every field of a call set; args is JSON text, a msgpack string", with(ev(event.KindCall, 5), func(e *event.Event) {
			e.Call, e.Tool, e.Args, e.Path = "c2", "edit_file", editArgs, "src/main.go"
		})),
		evSrc("result", "", with(ev(event.KindResult, 4), func(e *event.Event) {
			e.Call, e.Out = "c1", "main.go\nutil.go\n"
		})),
		evSrc("result_full", "every field of a result set: the call's tool, args and path repeated, and a failure", with(ev(event.KindResult, 6), func(e *event.Event) {
			e.Call, e.Tool, e.Args, e.Path = "c2", "edit_file", editArgs, "src/main.go"
			e.Err, e.Out = true, `edit_file: "if a < b {" not found in src/main.go`
		})),
		evSrc("heartbeat", "", ev(event.KindHeartbeat, 7)),
		evSrc("run_end", "", with(ev(event.KindRunEnd, 8), func(e *event.Event) { e.Status = event.StatusCompleted })),
		evSrc("run_end_failed", "", with(ev(event.KindRunEnd, 8), func(e *event.Event) { e.Status = event.StatusFailed })),
		evSrc("run_end_cancelled", "", with(ev(event.KindRunEnd, 8), func(e *event.Event) { e.Status = event.StatusCancelled })),
		evSrc("widths", "seq as a uint16, ts as a uint64, a str8 argument, non-ASCII ids and text",
			with(ev(event.KindCall, 300), func(e *event.Event) {
				e.Call, e.Tool, e.Path = "c-ü", "search", "docs/naïve.md"
				e.Args = `{"q":"café 🚀","limit":20}`
			})),
		evSrc("widths_result", "seq as a uint32 and a 300-byte output (str16)", with(ev(event.KindResult, 70000), func(e *event.Event) {
			e.Call, e.Out = "c-ü", strings.Repeat("0123456789", 30)
		})),
		evSrc("step_large", "seq as a uint8 and step as a uint32", with(ev(event.KindStep, 200), func(e *event.Event) { e.Step = 70000 })),
		evSrc("run_start_full", "every field of a run start: a lease, a workspace, a policy pattern, two tools and a document schema (each schema is JSON text, a msgpack string) and the promised outputs",
			with(ev(event.KindRunStart, 1), func(e *event.Event) {
				e.Agent, e.Lease, e.Workspace, e.Pattern = "coder", 30000, "/work/acme/run-42", "edit_and_verify"
				e.Tools = []event.Schema{{Name: "read_file", Schema: readSchema}, {Name: "edit_file", Schema: editSchema}}
				e.Docs = []event.Schema{{Name: "plan", Schema: planSchema}}
				e.Outputs = []string{"src/main.go", "CHANGELOG.md"}
			})),
		evSrc("run_start_tool_kinds", "declared tools that say what they do: OpenHands' shell tool, a search tool whose free-text query is no command, and an editor; a kind on a document schema is ignored",
			with(ev(event.KindRunStart, 1), func(e *event.Event) {
				e.Agent, e.Workspace = "openhands", "/workspace"
				e.Tools = []event.Schema{
					{Name: "execute_bash", Schema: bashSchema, Kind: event.ToolShell},
					{Name: "search", Schema: searchSchema, Kind: event.ToolRead},
					{Name: "edit_file", Schema: editSchema, Kind: event.ToolEdit},
				}
				e.Docs = []event.Schema{{Name: "plan", Schema: planSchema, Kind: "report"}}
			})),
		evSrc("step_full", "every field of a step: its turn, token use, cost in micro-USD, context use, and the plan document it produced", with(ev(event.KindStep, 2), func(e *event.Event) {
			e.Step, e.Turn, e.TokensIn, e.TokensOut, e.Cost, e.Context, e.Window = 1, 1, 12000, 350, 41250, 12350, 200000
			e.Planning, e.Doc, e.DocSchema = true, planDoc, "plan"
		})),
		evSrc("result_ref", "a result by reference: the output is the line pair \"--- FAIL: TestCompare (0.00s)\\n    main_test.go:12: got false, want true\\n\" 2000 times, put in GUARD_OUTPUTS under its digest; a failed verification that changed two files",
			with(ev(event.KindResult, 34), func(e *event.Event) {
				e.Call, e.Tool, e.Err = "c13", "shell", true
				e.Ref = &event.OutputRef{Digest: event.Digest([]byte(testOut)), Size: int64(len(testOut))}
				e.Exit, e.Verify = 1, true
				e.Changes = &event.Changes{Files: 2, Lines: 6, Hunks: 3, Paths: []string{"src/main.go", "src/util.go"}}
			})),
		evSrc("result_abandoned", "the agent gave up on call c3 before it ran (no verdict came in time): no outcome, and the call's tool repeated",
			with(ev(event.KindResult, 9), func(e *event.Event) {
				e.Call, e.Tool, e.Abandoned = "c3", "shell", true
			})),
		evSrc("round", "a parallel round of three calls, published before them", with(ev(event.KindRound, 40), func(e *event.Event) {
			e.Calls, e.Wait = []string{"c20", "c21", "c22"}, 30000
		})),
		evSrc("step_digest", "a step that says what the assistant wrote, by digest: here sha256 of its UTF-8 text \"I will read main.go next.\"; guard-consumer only compares digests for equality", with(ev(event.KindStep, 45), func(e *event.Event) {
			e.Step, e.TextDig = 9, event.Digest([]byte("I will read main.go next."))
		})),
		evSrc("turn", "a user turn: the user's second prompt of the run", with(ev(event.KindTurn, 46), func(e *event.Event) { e.Turn = 2 })),
		evSrc("turn_next", "a turn without a number: the next turn", ev(event.KindTurn, 46)),
		evSrc("resume", "an operator resumes the run after a stop, saying why", with(ev(event.KindResume, 48), func(e *event.Event) {
			e.By, e.Why = "ops-alice", "the build server is back; continue from the last step"
		})),
		evSrc("compaction", "the agent compacted its context from 190000 to 40000 tokens", with(ev(event.KindCompact, 49), func(e *event.Event) {
			e.Context, e.Window = 40000, 200000
		})),
		evSrc("timer", "the lease timer the heartbeat at seq 7 set, as the server's scheduler publishes it: seq is 0, and ts is what guard-consumer set",
			with(ev(event.KindTimer, 0), func(e *event.Event) {
				e.TS, e.Timer, e.Gen = t0+36000, "lease", 7
			})),
		{
			name: "event/extra_keys", typ: "event",
			note: "unknown keys of every type, keys in sorted rather than Go's order: decoders ignore the unknown keys, so re-encoding drops them",
			raw: map[string]any{
				"v": 1, "k": 4, "tn": tenant, "run": run, "seq": 9, "ts": t0 + 8000,
				"call": "c3", "tool": "read_file", "args": `{"path":"a.go"}`,
				"trace":    "4bf92f3577b34da6a3ce929d0e0e4736",
				"x_future": map[string]any{"n": -5, "list": []any{1, "two", true, nil}},
			},
		},

		decSrc("allow", "a plain allow: no guard, no message", withD(dec(event.Allow, 3), func(d *event.Decision) { d.Call = "c1" })),
		decSrc("repair", "", withD(dec(event.Repair, 5), func(d *event.Decision) {
			d.Call, d.Guard, d.Msg = "c2", "schema", "renamed key filePath to path"
		})),
		decSrc("advise", "a steer constraint and a counter", withD(dec(event.Advise, 13), func(d *event.Decision) {
			d.Call, d.Guard = "c5", "loop"
			d.Rule = "identical_call"
			d.Steer = &event.Steer{Kind: event.SteerAvoidRepeat, Sig: sigRead, Tool: "read_file"}
			d.Counts = []event.Counter{{Name: "repeat", Value: 3}}
			d.Msg = "you have made this exact read_file call 3 times in a row; change the arguments or the approach"
		})),
		decSrc("advise_counters", "several counters, a constraint with a tool but no signature", withD(dec(event.Advise, 21), func(d *event.Decision) {
			d.Call, d.Guard = "c9", "loop"
			d.Rule = "same_tool"
			d.Steer = &event.Steer{Kind: event.SteerVaryApproach, Tool: "grep"}
			d.Counts = []event.Counter{{Name: "same_tool", Value: 4}, {Name: "window", Value: 6}, {Name: "delta", Value: -1}}
			d.Msg = "grep was called 4 times in a row with different arguments; step back"
		})),
		decSrc("advise_bare", "a constraint with only its kind, answering a result", withD(dec(event.Advise, 14), func(d *event.Decision) {
			d.Call, d.Guard = "c5", "loop"
			d.Rule = "mistakes"
			d.Steer = &event.Steer{Kind: event.SteerReadErrors}
			d.Counts = []event.Counter{{Name: "mistakes", Value: 3}}
		})),
		decSrc("advise_override", "", withD(dec(event.Advise, 19), func(d *event.Decision) {
			d.Call, d.Guard = "c8", "loop"
			d.Rule = "identical_call"
			d.Steer = &event.Steer{Kind: event.SteerOverride, Sig: sigEdit, Tool: "edit_file"}
			d.Counts = []event.Counter{{Name: "repeat", Value: 5}}
			d.Msg = "the same edit_file call was made 5 times in a row; this call was refused, and repeating it once more stops the run"
		})),
		decSrc("advise_break_cycle", "", withD(dec(event.Advise, 25), func(d *event.Decision) {
			d.Call, d.Guard = "c11", "loop"
			d.Rule = "ping_pong"
			d.Steer = &event.Steer{Kind: event.SteerBreakCycle, Sig: sigRead}
			d.Counts = []event.Counter{{Name: "window", Value: 6}}
		})),
		decSrc("reject", "", withD(dec(event.Reject, 19), func(d *event.Decision) {
			d.Call, d.Guard, d.Reason = "c8", "loop", event.ReasonLoopDetected
			d.Rule = "identical_call"
			d.Counts = []event.Counter{{Name: "repeat", Value: 5}}
			d.Msg = "the same edit_file call was made 5 times in a row; refused"
		})),
		decSrc("defer", "", withD(dec(event.Defer, 27), func(d *event.Decision) {
			d.Call, d.Msg = "c12", "too many calls in flight; wait for an allow"
		})),
		decSrc("stop", "a stop that is also the verdict of the call it answers", withD(dec(event.Stop, 21), func(d *event.Decision) {
			d.Call, d.Guard, d.Reason, d.Outcome = "c9", "loop", event.ReasonSystemError, event.StatusFailed
			d.Rule = "identical_call"
			d.Counts = []event.Counter{{Name: "repeat", Value: 6}}
			d.Msg = "edit_file repeated the call c0ffee00deadbeef again after an override constraint"
		})),
		decSrc("stop_run", "a stop without a call id: it answers an event that is not a call or a result", withD(dec(event.Stop, 30), func(d *event.Decision) {
			d.Guard, d.Reason, d.Outcome = "loop", event.ReasonTooManyMistakes, event.StatusFailed
			d.Rule = "mistakes"
			d.Counts = []event.Counter{{Name: "mistakes", Value: 6}}
			d.Msg = "6 tool rounds in a row failed"
		})),
		decSrc("stop_completed", "complete_with_warning: the run is over but its outcome is completed", withD(dec(event.Stop, 11), func(d *event.Decision) {
			d.Call, d.Guard, d.Reason, d.Outcome = "c6", "loop", event.ReasonLoopDetected, event.StatusCompleted
			d.Rule = "identical_call"
			d.Counts = []event.Counter{{Name: "repeat", Value: 5}}
			d.Msg = "completed with a warning: the same read_file call was made 5 times in a row"
		})),
		decSrc("repair_args", "repaired arguments to run the call with, and what failed validation; a diag path of \"\" is the whole value", withD(dec(event.Repair, 37), func(d *event.Decision) {
			d.Call, d.Guard, d.Msg = "c16", "schema", "renamed key filePath to path"
			d.Args = `{"path":"src/main.go"}`
			d.Diags = []event.Diag{
				{Path: "", Want: `required property "path"`, Msg: `missing property "path"`},
				{Path: "/filePath", Want: "no additional properties", Got: `"src/main.go"`, Msg: `additional property "filePath" is not allowed`},
			}
		})),
		decSrc("reject_unknown_tool", "", withD(dec(event.Reject, 38), func(d *event.Decision) {
			d.Call, d.Guard, d.Reason = "c17", "schema", event.ReasonUnknownTool
			d.Near = []string{"read_file", "list_files"}
			d.Msg = `the run declared no tool "read_files"; the nearest are read_file and list_files`
		})),
		decSrc("reject_policy", "", withD(dec(event.Reject, 39), func(d *event.Decision) {
			d.Call, d.Guard, d.Reason, d.Rule = "c18", "policy", event.ReasonPolicyViolation, "read_before_edit"
			d.Msg = "edit_file on src/util.go before reading it"
		})),
		decSrc("stop_limit", "a stop answering a step: the rule names the limit", withD(dec(event.Stop, 50), func(d *event.Decision) {
			d.Guard, d.Reason, d.Rule, d.Outcome = "budget", event.ReasonLimitExceeded, "max_turns", event.StatusFailed
			d.Counts = []event.Counter{{Name: "turns", Value: 41}, {Name: "max", Value: 40}}
			d.Msg = "41 turns in this run, over the limit of 40; the run is stopped"
		})),
		decSrc("stop_lease", "it answers the lease timer (vector event/timer), so seq is 0 and ts is the timer's", withD(dec(event.Stop, 0), func(d *event.Decision) {
			d.TS = t0 + 36000
			d.Guard, d.Rule, d.Reason, d.Outcome = "lease", "lease", event.ReasonLeaseExpired, event.StatusCancelled
			d.Counts = []event.Counter{{Name: "lease_ms", Value: 30000}, {Name: "last_renewal", Value: 7}}
			d.Msg = "no heartbeat within the 30000 ms lease since event 7; the run is cancelled"
		})),
		decSrc("advise_monologue", "the assistant repeated itself: a constraint of its own", withD(dec(event.Advise, 45), func(d *event.Decision) {
			d.Guard, d.Rule = "loop", "monologue"
			d.Steer = &event.Steer{Kind: event.SteerRepeatMessage}
			d.Counts = []event.Counter{{Name: "messages", Value: 3}}
			d.Msg = "the same assistant message was repeated 3 times in a row; act on it, or answer differently"
		})),
		decSrc("advise_slow_down", "a run over its admission limit: the runner advises it once", withD(dec(event.Advise, 0), func(d *event.Decision) {
			d.Guard, d.Rule = "admission", "admission"
			d.Steer = &event.Steer{Kind: event.SteerSlowDown}
			d.Counts = []event.Counter{{Name: "refused", Value: 1}, {Name: "events_per_second", Value: 200}}
			d.Msg = "the run sends more than 200 events a second; events over that are dropped as dead letters of reason rate_limited"
		})),
		decSrc("advise_compaction_loop", "the context was compacted again and again: it answers the compaction", withD(dec(event.Advise, 49), func(d *event.Decision) {
			d.Guard, d.Rule = "loop", "compactions"
			d.Steer = &event.Steer{Kind: event.SteerCompactionLoop}
			d.Counts = []event.Counter{{Name: "compactions", Value: 5}}
			d.Msg = "the context was compacted 5 times in a row; stop and report what is left, or shed context another way"
		})),
		decSrc("reject_refused", "a call of a signature a rule refused for the rest of the run", withD(dec(event.Reject, 23), func(d *event.Decision) {
			d.Call, d.Guard, d.Reason, d.Rule = "c10", "loop", event.ReasonLoopDetected, "circuit_breaker"
			d.Msg = "this read_file call (signature " + sigRead + ") is refused for the rest of the run: it kept repeating (rule circuit_breaker)"
		})),
		decSrc("resumed", "the answer to the resume of vector event/resume: the stopped run goes on", withD(dec(event.Resumed, 48), func(d *event.Decision) {
			d.Rule = "resume"
			d.Msg = "resumed by ops-alice after LOOP_DETECTED: the build server is back; continue from the last step"
		})),
		decSrc("stale", "the verdict for a call published after run_end", withD(dec(event.Stale, 9), func(d *event.Decision) {
			d.Call, d.Msg = "c30", "the run has ended; no further calls are allowed"
		})),
		decSrc("pressure", "", withD(dec(event.Pressure, 47), func(d *event.Decision) {
			d.Guard, d.Level = "context", 85
			d.Counts = []event.Counter{{Name: "ctx", Value: 171000}, {Name: "win", Value: 200000}}
			d.Msg = "the context holds 171000 of 200000 tokens (85%), past 85% of the window; compact it before it fills"
		})),
		decSrc("output", "the bounded view of the result of vector event/result_ref: its first 40 lines, then the truncation marker", withD(dec(event.Output, 34), func(d *event.Decision) {
			d.Call, d.Guard = "c13", "output"
			d.View = firstLines(testOut, 40) + fmt.Sprintf("[truncated: lines 1-40 of 4000 shown, 3960 more; full output %s (%d bytes); next page at offset 40]",
				event.Digest([]byte(testOut)), len(testOut))
			d.Ref = &event.OutputRef{Digest: event.Digest([]byte(testOut)), Size: int64(len(testOut))}
			d.Trunc = &event.Truncation{LinesShown: 40, LinesRemaining: 3960, HasMore: true, TotalLines: 4000, TotalBytes: int64(len(testOut))}
		})),
		decSrc("output_tail", "a view from offset 450 of 500 lines (\"log line 1\\n\" to \"log line 500\\n\"): it reaches the end, so it has no marker, and lines_remaining and has_more are left out",
			withD(dec(event.Output, 44), func(d *event.Decision) {
				d.Call, d.Guard = "c20", "output"
				d.View = lastLines(logOut, 50)
				d.Ref = &event.OutputRef{Digest: event.Digest([]byte(logOut)), Size: int64(len(logOut))}
				d.Trunc = &event.Truncation{Offset: 450, LinesShown: 50, TotalLines: 500, TotalBytes: int64(len(logOut))}
			})),
		decSrc("settled", "the round of vector event/round settled when its wait ran out: it answers the round timer, so seq is 0", withD(dec(event.Settled, 0), func(d *event.Decision) {
			d.TS = t0 + 39000 + 30000
			d.Guard, d.Rule = "round", "wait"
			d.Calls, d.Missing = []string{"c20", "c21", "c22"}, []string{"c22"}
			d.Msg = "no result for c22 within 30000 ms"
		})),
		decSrc("settled_refused", "a round of three calls without a wait, one of them refused: it settles with the last result, listing the refused call in refused (not in missing); like every settled it names no call",
			withD(dec(event.Settled, 45), func(d *event.Decision) {
				d.Guard = "round"
				d.Calls, d.Refused = []string{"c30", "c31", "c32"}, []string{"c32"}
				d.Counts = []event.Counter{{Name: "round", Value: 41}, {Name: "calls", Value: 3}, {Name: "missing", Value: 0}, {Name: "refused", Value: 1}}
				d.Msg = "all 3 calls of round #41 are settled: c30 c31 c32; refused, without a result: c32"
			})),
		decSrc("repair_named", "a repair whose diagnostics name the repairs made: text repairs (path \"\", the whole text) first, then repairs of values by path",
			withD(dec(event.Repair, 46), func(d *event.Decision) {
				d.Call, d.Guard = "c33", "schema"
				d.Args = `{"path":"a.py","paths":["b.py"]}`
				d.Diags = []event.Diag{
					{Path: "", Want: "JSON", Got: "single or smart quotes", Msg: "put 2 strings in single or smart quotes in double quotes", Repair: "quotes"},
					{Path: "", Want: "JSON", Got: "missing closing bracket", Msg: "added a missing closing bracket", Repair: "missing_closers"},
					{Path: "/path", Want: "a path", Got: `string "[a.py](http://a.py)"`, Msg: `removed the markdown link around "a.py" at /path`, Repair: "markdown_link"},
					{Path: "/paths", Want: "array", Got: `string "b.py"`, Msg: "wrapped string \"b.py\" at /paths in an array", Repair: "wrap_array"},
				}
				d.Msg = "repaired the arguments of read_files: put 2 strings in single or smart quotes in double quotes; added a missing closing bracket; removed the markdown link around a.py at /path; and 1 more"
			})),
		{
			name: "decision/extra_keys", typ: "decision",
			note: "unknown keys at the top, inside steer and inside a counter, keys in sorted order: decoders ignore the unknown keys, so re-encoding drops them",
			raw: map[string]any{
				"v": 1, "k": 3, "tn": tenant, "run": run, "seq": 13, "ts": t0 + 12000,
				"call": "c5", "g": "loop",
				"steer":  map[string]any{"c": "avoid_repeat", "sig": sigRead, "tool": "read_file", "weight": 2},
				"ctr":    []any{map[string]any{"n": "repeat", "v": 3, "unit": "calls"}},
				"rev":    12,
				"labels": []any{"a", "b"},
			},
		},
	}
}

// build turns src into a vector.
func build(src source) (vector, error) {
	v := vector{Name: src.name, Note: src.note}
	var b []byte
	var js []byte
	var err error
	switch {
	case src.event != nil:
		v.Type = "event"
		b = event.AppendEvent(nil, src.event)
		js, err = wireJSON(reflect.ValueOf(*src.event))
	case src.decision != nil:
		v.Type = "decision"
		b = event.AppendDecision(nil, src.decision)
		js, err = wireJSON(reflect.ValueOf(*src.decision))
	default:
		v.Type, v.Extra = src.typ, true
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.SetSortMapKeys(true)
		enc.UseCompactInts(true)
		if err := enc.Encode(src.raw); err != nil {
			return v, err
		}
		b = buf.Bytes()
		js, err = marshalJSON(src.raw)
	}
	v.Hex, v.JSON = hex.EncodeToString(b), js
	return v, err
}

// render returns the text of testdata/vectors.json: one vector per
// object, its JSON form on one line.
func render(vs []vector) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, v := range vs {
		b.WriteString("  {\n")
		fmt.Fprintf(&b, "    \"name\": %s,\n", mustJSON(v.Name))
		fmt.Fprintf(&b, "    \"type\": %s,\n", mustJSON(v.Type))
		if v.Extra {
			b.WriteString("    \"extra\": true,\n")
		}
		if v.Note != "" {
			fmt.Fprintf(&b, "    \"note\": %s,\n", mustJSON(v.Note))
		}
		fmt.Fprintf(&b, "    \"hex\": %s,\n", mustJSON(v.Hex))
		fmt.Fprintf(&b, "    \"json\": %s\n", v.JSON)
		b.WriteString("  }")
		if i < len(vs)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes()
}

func mustJSON(v any) []byte {
	b, err := marshalJSON(v)
	if err != nil {
		panic(err)
	}
	return b
}

// marshalJSON is json.Marshal without HTML escaping, so JSON text inside
// strings stays readable.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// wireJSON returns the JSON form of a wire value, built from its struct
// tags and independent of the msgpack encoder: an object with the msgpack
// keys in field order, zero-valued omitempty fields left out.
func wireJSON(v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.Struct:
		var b bytes.Buffer
		b.WriteByte('{')
		n := 0
		for i := 0; i < v.NumField(); i++ {
			key, omit, ok := wireKey(v.Type().Field(i))
			if !ok || (omit && v.Field(i).IsZero()) {
				continue
			}
			val, err := wireJSON(v.Field(i))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.Write(mustJSON(key))
			b.WriteByte(':')
			b.Write(val)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	case reflect.Pointer:
		if v.IsNil() {
			return []byte("null"), nil
		}
		return wireJSON(v.Elem())
	case reflect.Slice:
		var b bytes.Buffer
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			val, err := wireJSON(v.Index(i))
			if err != nil {
				return nil, err
			}
			b.Write(val)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	case reflect.String:
		return marshalJSON(v.String())
	case reflect.Bool:
		return []byte(strconv.FormatBool(v.Bool())), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return []byte(strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return []byte(strconv.FormatUint(v.Uint(), 10)), nil
	}
	return nil, fmt.Errorf("no JSON form for %s", v.Type())
}

// wireKey returns the msgpack key of a struct field and whether it is
// omitted when zero; ok is false for fields that are not on the wire.
func wireKey(f reflect.StructField) (key string, omitempty, ok bool) {
	tag := f.Tag.Get("msgpack")
	if tag == "" || tag == "-" || !f.IsExported() {
		return "", false, false
	}
	key, opts, _ := strings.Cut(tag, ",")
	return key, slices.Contains(strings.Split(opts, ","), "omitempty"), true
}

// loadVectors reads testdata/vectors.json.
func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatalf("%v (run go test ./event -run TestVectorsFile -update to create it)", err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatalf("%s: %v", vectorsFile, err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s holds no vectors", vectorsFile)
	}
	return vs
}

// TestVectorsFile checks that testdata/vectors.json is what the Go values
// in sources produce, or rewrites it with -update.
func TestVectorsFile(t *testing.T) {
	var vs []vector
	for _, src := range sources() {
		v, err := build(src)
		if err != nil {
			t.Fatalf("%s: %v", src.name, err)
		}
		vs = append(vs, v)
	}
	got := render(vs)
	if *update {
		if err := os.WriteFile(vectorsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the vectors in vectors_test.go encode to; if the change is intended, run go test ./event -run TestVectorsFile -update and review the diff", vectorsFile)
	}
}

// TestVectors proves the codec against every vector: (a) the Go decoder
// reads the hex as the JSON form says and re-encodes it byte for byte,
// (b) a generic msgpack decoder reads the same map as the JSON form, and
// (c) the JSON form satisfies the payload's JSON Schema.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			b, err := hex.DecodeString(v.Hex)
			if err != nil {
				t.Fatalf("hex: %v", err)
			}
			if v.Hex != strings.ToLower(v.Hex) {
				t.Errorf("hex is not lowercase")
			}
			want, err := parseJSON(v.JSON)
			if err != nil {
				t.Fatalf("json: %v", err)
			}

			t.Run("codec", func(t *testing.T) { checkCodec(t, v, b, want) })
			t.Run("generic", func(t *testing.T) {
				var got map[string]any
				if err := msgpack.Unmarshal(b, &got); err != nil {
					t.Fatalf("a generic msgpack decoder cannot read the hex: %v", err)
				}
				norm, err := normalize(got)
				if err != nil {
					t.Fatalf("the hex holds a value the contract forbids: %v", err)
				}
				diff(t, "", norm, want)
			})
			t.Run("schema", func(t *testing.T) {
				sch := schemaFor(t, v.Type, want)
				if err := sch.Validate(want); err != nil {
					t.Errorf("the JSON form does not satisfy its schema: %v", err)
				}
			})
		})
	}
}

// checkCodec decodes b with the package's decoder and compares the value,
// field by field, with the JSON form want.
func checkCodec(t *testing.T, v vector, b []byte, want map[string]any) {
	var value any
	var reenc []byte
	switch v.Type {
	case "event":
		var e event.Event
		if err := event.DecodeEvent(b, &e); err != nil {
			t.Fatalf("DecodeEvent: %v", err)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("every event vector must be valid; Validate: %v", err)
		}
		value, reenc = e, event.AppendEvent(nil, &e)
	case "decision":
		var d event.Decision
		if err := event.DecodeDecision(b, &d); err != nil {
			t.Fatalf("DecodeDecision: %v", err)
		}
		if !d.Kind.Valid() {
			t.Errorf("decision kind %d is not a kind of this version", d.Kind)
		}
		value, reenc = d, event.AppendDecision(nil, &d)
	default:
		t.Fatalf("type %q, want event or decision", v.Type)
	}
	js, err := wireJSON(reflect.ValueOf(value))
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	known := prune(reflect.TypeOf(value), want)
	if !v.Extra && !reflect.DeepEqual(known, want) {
		t.Errorf("the JSON form holds keys the contract does not define; mark the vector extra")
	}
	if v.Extra && reflect.DeepEqual(known, want) {
		t.Errorf("the vector is marked extra but holds no unknown key")
	}
	diff(t, "", got, known)

	if v.Extra {
		// Unknown keys are dropped, so only the known ones come back.
		var back map[string]any
		if err := msgpack.Unmarshal(reenc, &back); err != nil {
			t.Fatal(err)
		}
		norm, err := normalize(back)
		if err != nil {
			t.Fatal(err)
		}
		diff(t, "re-encoded ", norm, known)
		return
	}
	if h := hex.EncodeToString(reenc); h != v.Hex {
		t.Errorf("re-encoding gives\n%s\nwant\n%s", h, v.Hex)
	}
}

// prune returns the keys of m that the wire type t defines, recursively.
func prune(t reflect.Type, m any) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := m.(map[string]any)
		if !ok {
			return m
		}
		out := map[string]any{}
		for i := 0; i < t.NumField(); i++ {
			key, _, ok := wireKey(t.Field(i))
			if val, found := obj[key]; ok && found {
				out[key] = prune(t.Field(i).Type, val)
			}
		}
		return out
	case reflect.Slice:
		arr, ok := m.([]any)
		if !ok {
			return m
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			out[i] = prune(t.Elem(), e)
		}
		return out
	}
	return m
}

// diff reports every key where got and want differ.
func diff(t *testing.T, prefix string, got, want any) {
	t.Helper()
	for _, d := range diffs("", got, want) {
		t.Errorf("%s%s", prefix, d)
	}
}

func diffs(path string, got, want any) []string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		var out []string
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range wm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			g, inG := gm[k]
			w, inW := wm[k]
			switch {
			case !inG:
				out = append(out, fmt.Sprintf("key %q: missing, want %#v", path+k, w))
			case !inW:
				out = append(out, fmt.Sprintf("key %q: got %#v, want no such key", path+k, g))
			default:
				out = append(out, diffs(path+k+".", g, w)...)
			}
		}
		return out
	}
	if !reflect.DeepEqual(got, want) {
		return []string{fmt.Sprintf("key %q: got %#v, want %#v", strings.TrimSuffix(path, "."), got, want)}
	}
	return nil
}

// parseJSON decodes a JSON object with every number as an int64.
func parseJSON(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	n, err := normalize(v)
	if err != nil {
		return nil, err
	}
	m, ok := n.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object: %s", b)
	}
	return m, nil
}

// normalize turns every integer into an int64 and refuses what the
// contract does not allow: floats, binary, extension types.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return nil, fmt.Errorf("number %s is not an int64", x)
		}
		return n, nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return nil, fmt.Errorf("integer %d does not fit an int64", x)
		}
		return int64(x), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("%T is not a wire type", v)
}

// TestVectorsCover checks that the vectors exercise every event kind, every
// decision kind, every key at every depth (such as ref.dig or
// trunc.has_more), and unknown keys.
func TestVectorsCover(t *testing.T) {
	events := map[event.Kind]bool{}
	decisions := map[event.DecisionKind]bool{}
	seen := map[string]bool{} // "event.<path>" or "decision.<path>" set by some vector
	var steerAndCounters, extraEvent, extraDecision bool
	for _, v := range loadVectors(t) {
		b, err := hex.DecodeString(v.Hex)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		m, err := parseJSON(v.JSON)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		jsonPaths(m, v.Type+".", seen)
		switch v.Type {
		case "event":
			var e event.Event
			if err := event.DecodeEvent(b, &e); err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			events[e.Kind] = true
			extraEvent = extraEvent || v.Extra
		case "decision":
			var d event.Decision
			if err := event.DecodeDecision(b, &d); err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			decisions[d.Kind] = true
			steerAndCounters = steerAndCounters || (d.Steer != nil && d.Steer.Sig != "" && d.Steer.Tool != "" && len(d.Counts) > 0)
			extraDecision = extraDecision || v.Extra
		}
	}
	for k := event.Kind(1); k != 0; k++ {
		if k.Valid() && !events[k] {
			t.Errorf("no vector for event kind %s (%d)", k, k)
		}
	}
	for k := event.DecisionKind(1); k != 0; k++ {
		if k.Valid() && !decisions[k] {
			t.Errorf("no vector for decision kind %s (%d)", k, k)
		}
	}
	for typ, value := range map[string]any{"event": event.Event{}, "decision": event.Decision{}} {
		for _, p := range wirePaths(reflect.TypeOf(value), "") {
			if !seen[typ+"."+p] {
				t.Errorf("no %s vector sets %q", typ, p)
			}
		}
	}
	if !steerAndCounters {
		t.Error("no decision carries a steer constraint with sig and tool, and counters")
	}
	if !extraEvent || !extraDecision {
		t.Errorf("want an extra (unknown keys) vector of each type; event %t, decision %t", extraEvent, extraDecision)
	}
}

// wirePaths returns the keys of the wire type rt and, for keys that hold a
// struct or a slice of structs, the keys inside as key.sub or key[].sub.
func wirePaths(rt reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < rt.NumField(); i++ {
		key, _, ok := wireKey(rt.Field(i))
		if !ok {
			continue
		}
		out = append(out, prefix+key)
		if st, slice := structOf(rt.Field(i).Type); st != nil {
			sub := prefix + key + "."
			if slice {
				sub = prefix + key + "[]."
			}
			out = append(out, wirePaths(st, sub)...)
		}
	}
	return out
}

// structOf returns the struct type a field of type ft holds, directly,
// through a pointer or as the elements of a slice, or nil.
func structOf(ft reflect.Type) (st reflect.Type, slice bool) {
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if ft.Kind() == reflect.Slice {
		ft, slice = ft.Elem(), true
	}
	if ft.Kind() != reflect.Struct {
		return nil, false
	}
	return ft, slice
}

// jsonPaths records in seen the paths of m's keys, named as wirePaths
// names them.
func jsonPaths(m map[string]any, prefix string, seen map[string]bool) {
	for k, v := range m {
		seen[prefix+k] = true
		switch x := v.(type) {
		case map[string]any:
			jsonPaths(x, prefix+k+".", seen)
		case []any:
			for _, e := range x {
				if em, ok := e.(map[string]any); ok {
					jsonPaths(em, prefix+k+"[].", seen)
				}
			}
		}
	}
}

// vectorJSON returns a copy of the JSON form of the named vector.
func vectorJSON(t *testing.T, name string) (string, map[string]any) {
	t.Helper()
	for _, v := range loadVectors(t) {
		if v.Name == name {
			m, err := parseJSON(v.JSON)
			if err != nil {
				t.Fatal(err)
			}
			return v.Type, m
		}
	}
	t.Fatalf("no vector %s", name)
	return "", nil
}
