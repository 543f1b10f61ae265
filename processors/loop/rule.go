package loop

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/guardstream/guardstream/event"
)

// Rule is one detector of the loop guard: what it counts, when two items
// are the same, over which window, what resets it, and what it does as the
// count rises. Its zero values are the common case: a rule that sets only a
// name and a ladder counts identical calls in a row.
type Rule struct {
	// Name identifies the rule in policies and in the rule field of its
	// decisions: lower-case letters, digits and underscores.
	Name string `json:"name"`
	// Disabled turns the rule off, as a scope or preset that inherits it
	// may. (Not "off": YAML 1.1 reads a bare off as false.)
	Disabled bool `json:"disabled,omitempty"`
	// Count is what the rule counts; calls when empty.
	Count Counted `json:"count,omitempty"`
	// Only keeps the items of one outcome: failed or ok results or
	// rounds. Other items break a consecutive streak and count toward
	// nothing.
	Only Outcome `json:"only,omitempty"`
	// Identity lists what makes two calls the same: tool, args, path.
	// Calls and results default to all three; rounds to none (every round
	// is the same), so a rounds rule with an identity counts repeated
	// rounds, a round's identity being the sum of its calls'. A rule that
	// tells calls apart by path but not by args ignores calls without one.
	Identity []Field `json:"identity,omitempty"`
	// IgnoreArgs lists top-level argument keys the rule leaves out of a
	// call's arguments, such as a progress note the model rewrites on
	// every call. When it is not set, the rule leaves out the loop's
	// ignore_args; an empty list leaves nothing out.
	IgnoreArgs []string `json:"ignore_args,omitzero"`
	// Result is what of a result joins a results rule's identity: none,
	// error (the err flag), exit (err and exit code) or output (err, exit
	// and the output, normalised by Normalize); output when empty. For a
	// calls rule that resets on progress, it says what progress is.
	Result Equality `json:"result,omitempty"`
	// Normalize lists masks applied to an output before it is compared:
	// digits, hex, uuid.
	Normalize []Mask `json:"normalize,omitempty"`
	// Unit makes repeats within one round or turn count once: call (every
	// call counts, the default), round or turn.
	Unit Unit `json:"unit,omitempty"`
	// Window is how items are counted: consecutive (the default), sliding
	// over the last Size items, or over the whole run.
	Window WindowKind `json:"window,omitempty"`
	// Size is a sliding window's length in items.
	Size int `json:"size,omitempty"`
	// Cycle is the longest repeating pattern a consecutive window finds, 1
	// to MaxCycle; 1 (the default) counts the same item again and again.
	// A consecutive count is in repetitions of the pattern.
	Cycle int `json:"cycle,omitempty"`
	// MinCycle is the shortest pattern counted: 2 for ping-pong, which two
	// identical calls in a row are not.
	MinCycle int `json:"min_cycle,omitempty"`
	// Varied fires the ladder only for streaks whose full call signature
	// changed at least once: the same tool with varying arguments. It
	// applies to calls and results rules.
	Varied bool `json:"varied,omitempty"`
	// MinTools fires the ladder only in runs with at least this many
	// tools: declared at run start, or, when none are, seen in calls.
	MinTools int `json:"min_tools,omitempty"`
	// Match lists the tools or classes the rule watches; empty: all.
	// Calls of other tools are invisible to it.
	Match []string `json:"match,omitempty"`
	// ResetOn lists the events that clear the rule's counts, refusals
	// and escalation.
	ResetOn []Trigger `json:"reset_on,omitempty"`
	// RearmOn lists the events after which the ladder fires again at the
	// current count, without clearing it.
	RearmOn []Trigger `json:"rearm_on,omitempty"`
	// Ladder is the escalation, by ascending count.
	Ladder []Step `json:"ladder,omitempty"`
	// Tools overrides the rule for a tool or a class of tools: disabled,
	// another ladder, another result equality. A tool's own entry wins
	// over its class's.
	Tools map[string]Override `json:"tools,omitempty"`
}

// Step is one rung of a ladder: what the rule does when its count reaches
// At.
type Step struct {
	At int `json:"at"`
	Do Do  `json:"do"`
	// Steer is the constraint of an advice; the rule's natural one when
	// empty (avoid_repeat for calls, read_errors for failures, ...).
	Steer event.SteerKind `json:"steer,omitempty"`
	// Reason is the typed reason of a stop, reject or refusal, and of the
	// stop that follows an inject_steer (SYSTEM_ERROR when empty).
	Reason event.Reason `json:"reason,omitempty"`
	// Every repeats an advise or reject on every item at or above At,
	// instead of once when the count reaches it.
	Every bool `json:"every,omitempty"`
	// Scope is what a refusal covers: signature (the default) or tool.
	Scope Scope `json:"scope,omitempty"`
}

// Override changes a rule for one tool or class. A ladder or masks it
// does not set are the rule's; an empty list replaces them with none.
type Override struct {
	Disabled  bool     `json:"disabled,omitempty"`
	Ladder    []Step   `json:"ladder,omitzero"`
	Result    Equality `json:"result,omitempty"`
	Normalize []Mask   `json:"normalize,omitzero"`
}

// Counted names what a rule counts.
type Counted string

// What rules count.
const (
	CountCalls       Counted = "calls"       // calls, judged before they run
	CountResults     Counted = "results"     // a call with its result, judged when the result arrives
	CountRounds      Counted = "rounds"      // tool rounds, judged when they close
	CountMessages    Counted = "messages"    // steps with a text digest
	CountCompactions Counted = "compactions" // context compactions
)

// Outcome selects results or rounds by how they ended.
type Outcome string

// Outcomes.
const (
	OnlyFailed Outcome = "failed" // a failed result; a round whose every result failed
	OnlyOK     Outcome = "ok"     // a successful result; a round with a success
)

// Field is a part of a call that makes up its identity.
type Field string

// Identity fields.
const (
	FieldTool Field = "tool"
	FieldArgs Field = "args" // canonical: key order, whitespace and number formatting do not matter
	FieldPath Field = "path" // hashed apart from args
)

// Equality is what of a result is compared.
type Equality string

// Result equalities.
const (
	ResultNone   Equality = "none"
	ResultError  Equality = "error"
	ResultExit   Equality = "exit"
	ResultOutput Equality = "output"
)

// Mask hides a volatile part of an output before it is compared.
type Mask string

// Masks.
const (
	MaskDigits Mask = "digits" // every run of decimal digits: pids, counters, timestamps
	MaskHex    Mask = "hex"    // every run of 8 or more hex digits: session ids, hashes
	MaskUUID   Mask = "uuid"   // every UUID
)

// Unit is the span within which repeats count once.
type Unit string

// Units.
const (
	UnitCall  Unit = "call"
	UnitRound Unit = "round"
	UnitTurn  Unit = "turn"
)

// WindowKind is how a rule's items are counted.
type WindowKind string

// Windows.
const (
	WindowConsecutive WindowKind = "consecutive" // repetitions of the trailing pattern
	WindowSliding     WindowKind = "sliding"     // items equal to this one among the last Size
	WindowRun         WindowKind = "run"         // items equal to this one in the run
)

// Trigger is an event that resets or re-arms a rule.
type Trigger string

// Triggers.
const (
	OnTurn       Trigger = "turn"       // a turn event, or a step opening a new turn
	OnResume     Trigger = "resume"     // an accepted resume
	OnCompaction Trigger = "compaction" // a compaction event
	OnCall       Trigger = "call"
	OnResult     Trigger = "result"
	OnStep       Trigger = "step"
	// OnProgress, for calls rules, restarts the streak at the call whose
	// result differs from the previous result of the same call.
	OnProgress Trigger = "progress"
)

// Do is what a ladder step does.
type Do string

// Ladder actions.
const (
	DoAdvise              Do = "advise"                // a steer constraint; the call runs
	DoReject              Do = "reject"                // refuse this call (calls rules)
	DoRefuse              Do = "refuse"                // refuse this call and every later one of the signature or tool
	DoStop                Do = "stop"                  // stop the run, outcome failed
	DoInjectSteer         Do = "inject_steer"          // refuse with an override; the next repeat stops the run
	DoCompleteWithWarning Do = "complete_with_warning" // stop the run, outcome completed
	DoAction              Do = "action"                // what the loop policy's Action says
)

// Scope is what a refusal covers.
type Scope string

// Refusal scopes.
const (
	ScopeSignature Scope = "signature"
	ScopeTool      Scope = "tool"
)

// Rules is a rule list that a policy decodes by name: a decoded rule
// replaces the rule of the same name where it stands, whole, and a rule
// with a new name is appended. So a scope or a policy file over a preset
// names only the rules it changes.
type Rules []Rule

// UnmarshalJSON merges a JSON array of rules into rs by name. Unknown
// fields are errors.
func (rs *Rules) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	merged := append(Rules(nil), (*rs)...)
	for i, m := range raw {
		var r Rule
		dec := json.NewDecoder(bytes.NewReader(m))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("rules[%d]: %w", i, err)
		}
		if j := merged.index(r.Name); j >= 0 {
			merged[j] = r
		} else {
			merged = append(merged, r)
		}
	}
	*rs = merged
	return nil
}

// index returns the position of the rule named name, or -1.
func (rs Rules) index(name string) int {
	for i := range rs {
		if rs[i].Name == name {
			return i
		}
	}
	return -1
}
