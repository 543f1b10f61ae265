package event

import "fmt"

// Kind says what an event reports. Codes are stable: a code is never reused
// or renumbered, and new kinds get new codes.
type Kind uint8

// Event kinds.
const (
	KindRunStart  Kind = 1  // the agent starts a run
	KindRunEnd    Kind = 2  // the agent ends a run and claims an outcome
	KindStep      Kind = 3  // an LLM step: one model call of the agent loop
	KindCall      Kind = 4  // a tool call, before dispatch; answered by a verdict
	KindResult    Kind = 5  // the result of a tool call
	KindHeartbeat Kind = 6  // the agent is alive; renews the run's lease
	KindTimer     Kind = 7  // a timer a guard set fired; published by the server's scheduler, never by agents
	KindRound     Kind = 8  // the agent announces a parallel round of calls
	KindTurn      Kind = 9  // a user turn begins: a new prompt, or the user's "continue"
	KindResume    Kind = 10 // an operator resumes a stopped run, saying who and why
	KindCompact   Kind = 11 // the agent compacted (condensed) the model's context
)

var kindNames = [...]string{
	KindRunStart:  "run_start",
	KindRunEnd:    "run_end",
	KindStep:      "step",
	KindCall:      "call",
	KindResult:    "result",
	KindHeartbeat: "heartbeat",
	KindTimer:     "timer",
	KindRound:     "round",
	KindTurn:      "turn",
	KindResume:    "resume",
	KindCompact:   "compaction",
}

// kindTokens maps a kind to the last token of its subject.
var kindTokens = [...]string{
	KindRunStart:  "run",
	KindRunEnd:    "run",
	KindStep:      "step",
	KindCall:      "call",
	KindResult:    "result",
	KindHeartbeat: "hb",
	KindTimer:     "timer",
	KindRound:     "round",
	KindTurn:      "turn",
	KindResume:    "resume",
	KindCompact:   "compact",
}

// Valid reports whether k is a kind of this version of the contract.
func (k Kind) Valid() bool { return int(k) < len(kindNames) && kindNames[k] != "" }

// String returns the kind's name, such as "call".
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Token returns the subject token events of this kind are published under,
// such as "call" for agent.<tenant>.<run>.call. Run start and end share "run".
func (k Kind) Token() string {
	if k.Valid() {
		return kindTokens[k]
	}
	return ""
}
