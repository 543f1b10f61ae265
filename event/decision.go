package event

import "fmt"

// DecisionKind says what guard-consumer decided. Codes are stable: a code is
// never reused or renumbered, and new kinds get new codes.
type DecisionKind uint8

// Decision kinds. Allow, Repair, Reject, Defer, Stop and Stale are
// verdicts: a tool call receives one of them, and after a Defer, later, an
// Allow that releases it (or a Stop). The others are not verdicts: Advise
// carries a steer constraint the agent must honour before its next step,
// Pressure reports context use, Output carries the bounded view of a
// result, and Settled releases a parallel round.
const (
	Allow    DecisionKind = 1  // run the call as sent
	Repair   DecisionKind = 2  // run the call with the repaired arguments in Args
	Advise   DecisionKind = 3  // honour the steer constraint in Steer
	Reject   DecisionKind = 4  // do not run the call; Reason and Msg say why
	Defer    DecisionKind = 5  // do not run the call yet; an Allow for it follows
	Stop     DecisionKind = 6  // the run is over; Reason says why
	Stale    DecisionKind = 7  // the run had already ended or stopped; the event changed nothing
	Pressure DecisionKind = 8  // the context crossed Level percent of the window
	Output   DecisionKind = 9  // the bounded view of a result for the model
	Settled  DecisionKind = 10 // every result of a round is in, or its wait ran out
	Resumed  DecisionKind = 11 // the stopped run goes on: a resume was accepted
)

var decisionNames = [...]string{
	Allow:    "allow",
	Repair:   "repair",
	Advise:   "advise",
	Reject:   "reject",
	Defer:    "defer",
	Stop:     "stop",
	Stale:    "stale",
	Pressure: "pressure",
	Output:   "output",
	Settled:  "settled",
	Resumed:  "resumed",
}

// Valid reports whether k is a decision kind of this version of the contract.
func (k DecisionKind) Valid() bool { return int(k) < len(decisionNames) && decisionNames[k] != "" }

// String returns the kind's name, such as "allow".
func (k DecisionKind) String() string {
	if k.Valid() {
		return decisionNames[k]
	}
	return fmt.Sprintf("decision(%d)", uint8(k))
}

// IsVerdict reports whether k answers a tool call.
func (k DecisionKind) IsVerdict() bool {
	switch k {
	case Allow, Repair, Reject, Defer, Stop, Stale:
		return true
	}
	return false
}

// Token returns the subject token decisions of this kind are published
// under: "verdict" for allow, repair, reject, defer and stale, and the
// kind's name for the others.
func (k DecisionKind) Token() string {
	switch k {
	case Advise:
		return "advice"
	case Allow, Repair, Reject, Defer, Stale:
		return "verdict"
	case Stop, Pressure, Output, Settled, Resumed:
		return decisionNames[k]
	}
	return ""
}

// Decision is what guard-consumer publishes in answer to an event. Tenant,
// Run, Seq and TS repeat the event's; Call is set when the decision is
// about a call. Which other fields are set depends on Kind.
type Decision struct {
	V      int          `msgpack:"v"`   // contract version, 1
	Kind   DecisionKind `msgpack:"k"`   // what was decided
	Tenant string       `msgpack:"tn"`  // tenant of the run
	Run    string       `msgpack:"run"` // the run
	Seq    int64        `msgpack:"seq"` // Seq of the event this answers
	TS     int64        `msgpack:"ts"`  // TS of the event this answers

	Call    string    `msgpack:"call,omitempty"`  // the call this is about
	Guard   string    `msgpack:"g,omitempty"`     // the processor that decided; empty for a plain allow
	Reason  Reason    `msgpack:"rsn,omitempty"`   // why, for reject and stop
	Rule    string    `msgpack:"rule,omitempty"`  // the limit or policy rule that decided, such as "max_turns"
	Outcome Status    `msgpack:"out,omitempty"`   // the run's final outcome, for stop
	Msg     string    `msgpack:"msg,omitempty"`   // a sentence for the model or the operator
	Steer   *Steer    `msgpack:"steer,omitempty"` // the constraint, for advise
	Counts  []Counter `msgpack:"ctr,omitempty"`   // the counters that led here

	Args  string   `msgpack:"args,omitempty"`  // repaired arguments (or document) as JSON text, for repair
	Diags []Diag   `msgpack:"diag,omitempty"`  // what failed validation, for repair, reject, advise and stop
	Near  []string `msgpack:"near,omitempty"`  // registered tools nearest an unknown one
	Level int64    `msgpack:"level,omitempty"` // percent of the context window crossed, for pressure

	View  string      `msgpack:"view,omitempty"`  // the bounded text the model sees, for output
	Ref   *OutputRef  `msgpack:"ref,omitempty"`   // the full output in the object store, for output
	Trunc *Truncation `msgpack:"trunc,omitempty"` // how View relates to the full output, for output

	Calls   []string `msgpack:"calls,omitempty"`   // the round's calls in call-id order, for settled
	Missing []string `msgpack:"missing,omitempty"` // calls whose results did not come in time, for settled
	Refused []string `msgpack:"refused,omitempty"` // calls the guard refused, which have no result, for settled
}

// Counter is a named count that led to a decision, such as repeat=5.
type Counter struct {
	Name  string `msgpack:"n"`
	Value int64  `msgpack:"v"`
}

// Diag is one validation failure, or one repair: where, what was expected,
// what was found, and, for a repair, which one was made.
type Diag struct {
	Path   string `msgpack:"path"`             // JSON Pointer to the failing value, such as "/path"
	Want   string `msgpack:"want,omitempty"`   // what the schema expects there
	Got    string `msgpack:"got,omitempty"`    // what the value is
	Msg    string `msgpack:"msg"`              // the failure in a sentence
	Repair string `msgpack:"repair,omitempty"` // the named repair that changed the value, such as "trailing_comma"
}

// Truncation describes a bounded view of an output: the reference designs'
// pagination metadata.
type Truncation struct {
	Offset         int64 `msgpack:"offset,omitempty"`          // first line of the view, from 0
	LinesShown     int64 `msgpack:"lines_shown"`               // lines in the view
	LinesRemaining int64 `msgpack:"lines_remaining,omitempty"` // lines after the view
	HasMore        bool  `msgpack:"has_more,omitempty"`        // the view does not reach the end
	TotalLines     int64 `msgpack:"total_lines"`               // lines in the full output
	TotalBytes     int64 `msgpack:"total_bytes"`               // bytes in the full output
}
