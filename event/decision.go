package event

import "fmt"

// DecisionKind says what guard-consumer decided. Codes are stable: a code is
// never reused or renumbered, and new kinds get new codes.
type DecisionKind uint8

// Decision kinds. Allow, Repair, Reject, Defer and Stop are verdicts: a tool
// call receives exactly one of them. Advise is not a verdict; it carries a
// steer constraint the agent must honour before its next step.
const (
	Allow  DecisionKind = 1 // run the call as sent
	Repair DecisionKind = 2 // run the call with the repaired arguments in Args
	Advise DecisionKind = 3 // honour the steer constraint in Steer
	Reject DecisionKind = 4 // do not run the call; Reason and Msg say why
	Defer  DecisionKind = 5 // do not run the call yet; an Allow for it follows
	Stop   DecisionKind = 6 // the run is over; Reason says why
)

var decisionNames = [...]string{
	Allow:  "allow",
	Repair: "repair",
	Advise: "advise",
	Reject: "reject",
	Defer:  "defer",
	Stop:   "stop",
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
func (k DecisionKind) IsVerdict() bool { return k.Valid() && k != Advise }

// Token returns the subject token decisions of this kind are published under:
// "verdict" for allow, repair, reject and defer, "advice" and "stop".
func (k DecisionKind) Token() string {
	switch k {
	case Advise:
		return "advice"
	case Stop:
		return "stop"
	case Allow, Repair, Reject, Defer:
		return "verdict"
	}
	return ""
}

// Decision is what guard-consumer publishes in answer to an event. Tenant,
// Run, Seq and TS repeat the event's; Call is set when the event was a call
// or a result.
type Decision struct {
	V      int          `msgpack:"v"`   // contract version, 1
	Kind   DecisionKind `msgpack:"k"`   // what was decided
	Tenant string       `msgpack:"tn"`  // tenant of the run
	Run    string       `msgpack:"run"` // the run
	Seq    int64        `msgpack:"seq"` // Seq of the event this answers
	TS     int64        `msgpack:"ts"`  // TS of the event this answers

	Call    string    `msgpack:"call,omitempty"`  // the call this answers
	Guard   string    `msgpack:"g,omitempty"`     // the processor that decided; empty for a plain allow
	Reason  Reason    `msgpack:"rsn,omitempty"`   // why, for reject and stop
	Outcome Status    `msgpack:"out,omitempty"`   // the run's final outcome, for stop
	Msg     string    `msgpack:"msg,omitempty"`   // a sentence for the model or the operator
	Steer   *Steer    `msgpack:"steer,omitempty"` // the constraint, for advise
	Counts  []Counter `msgpack:"ctr,omitempty"`   // the counters that led here, for stop and advise
}

// Counter is a named count that led to a decision, such as repeat=5.
type Counter struct {
	Name  string `msgpack:"n"`
	Value int64  `msgpack:"v"`
}
