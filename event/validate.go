package event

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxToolLen is the longest tool name accepted, in bytes.
const MaxToolLen = 256

// Validate reports the first field of ev that breaks the contract, as a
// *FieldError wrapping ErrInvalid, or nil. It checks what every consumer
// relies on; whether a call's arguments fit the tool is a guard's business,
// not the contract's.
func (ev *Event) Validate() error {
	if !ev.Kind.Valid() {
		return invalid("k", "unknown event kind %d", uint8(ev.Kind))
	}
	if err := CheckID(ev.Tenant); err != nil {
		return invalid("tn", "%v", err)
	}
	if err := CheckID(ev.Run); err != nil {
		return invalid("run", "%v", err)
	}
	if ev.Seq <= 0 {
		return invalid("seq", "got %d; per-run sequences start at 1", ev.Seq)
	}
	if ev.Step < 0 {
		return invalid("step", "got %d; steps are numbered from 0", ev.Step)
	}
	if ev.TS <= 0 {
		return invalid("ts", "missing; want milliseconds since the Unix epoch")
	}
	switch ev.Kind {
	case KindCall:
		if err := ev.checkCallID(); err != nil {
			return err
		}
		if ev.Tool == "" || len(ev.Tool) > MaxToolLen || !printable(ev.Tool) {
			return invalid("tool", "want a tool name of 1 to %d bytes of printable UTF-8", MaxToolLen)
		}
	case KindResult:
		return ev.checkCallID()
	case KindRunEnd:
		if !ev.Status.Valid() {
			return invalid("status", "got %q, want %q, %q or %q", ev.Status, StatusCompleted, StatusFailed, StatusCancelled)
		}
	}
	return nil
}

func (ev *Event) checkCallID() error {
	if err := CheckID(ev.Call); err != nil {
		return invalid("call", "%v", err)
	}
	return nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// String returns a short description of ev for logs, such as
// "call acme/run-1#4 read_file".
func (ev *Event) String() string {
	s := fmt.Sprintf("%s %s/%s#%d", ev.Kind, ev.Tenant, ev.Run, ev.Seq)
	if ev.Tool != "" {
		s += " " + ev.Tool
	}
	return s
}
