package event

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on event contents.
const (
	MaxToolLen    = 256 // bytes of a tool, schema or timer name
	MaxRoundCalls = 256 // calls in one round
	MaxDeclared   = 256 // tools, documents or outputs declared at run start
	MinLease      = 1000
	MaxDigestLen  = 256  // bytes of a step's text digest
	MaxWhyLen     = 1024 // bytes of a resume's why
	digestPrefix  = "sha256:"
)

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
	switch {
	case ev.Kind == KindTimer && ev.Seq != 0:
		return invalid("seq", "got %d; timer events carry no sequence", ev.Seq)
	case ev.Kind != KindTimer && ev.Seq <= 0:
		return invalid("seq", "got %d; per-run sequences start at 1", ev.Seq)
	}
	if ev.TS <= 0 {
		return invalid("ts", "missing; want milliseconds since the Unix epoch")
	}
	if err := ev.checkSizes(); err != nil {
		return err
	}
	switch ev.Kind {
	case KindRunStart:
		return ev.validateStart()
	case KindStep:
		return ev.validateStep()
	case KindCall:
		if err := checkCallID("call", ev.Call); err != nil {
			return err
		}
		return checkName("tool", ev.Tool)
	case KindResult:
		return ev.validateResult()
	case KindRunEnd:
		if !ev.Status.Valid() {
			return invalid("status", "got %q, want %q, %q or %q", ev.Status, StatusCompleted, StatusFailed, StatusCancelled)
		}
	case KindRound:
		return ev.validateRound()
	case KindTurn:
		if ev.Turn < 0 {
			return invalid("turn", "got %d; want 0 or more", ev.Turn)
		}
	case KindResume:
		if err := checkName("by", ev.By); err != nil {
			return err
		}
		if ev.Why == "" || len(ev.Why) > MaxWhyLen || !printable(ev.Why) {
			return invalid("why", "want a reason of 1 to %d bytes of printable UTF-8", MaxWhyLen)
		}
	case KindCompact:
		return nonNegative(intField{"ctx", ev.Context}, intField{"win", ev.Window})
	case KindTimer:
		if err := CheckID(ev.Timer); err != nil {
			return invalid("timer", "%v; timer names are subject tokens", err)
		}
		if ev.Gen <= 0 {
			return invalid("gen", "got %d; want the sequence of the event that set the timer", ev.Gen)
		}
	}
	return nil
}

func (ev *Event) validateStart() error {
	if ev.Lease != 0 && ev.Lease < MinLease {
		return invalid("lease", "got %d ms; want 0 (no lease) or at least %d", ev.Lease, MinLease)
	}
	if ev.Workspace != "" && (!printable(ev.Workspace) || !isAbs(ev.Workspace)) {
		return invalid("ws", "%q is not an absolute path of printable UTF-8", ev.Workspace)
	}
	for _, d := range []struct {
		key     string
		schemas []Schema
	}{{"tools", ev.Tools}, {"docs", ev.Docs}} {
		if len(d.schemas) > MaxDeclared {
			return overLimit(d.key, "%d declared; the limit is %d", len(d.schemas), MaxDeclared)
		}
		seen := make(map[string]bool, len(d.schemas))
		for i, s := range d.schemas {
			field := fmt.Sprintf("%s[%d].name", d.key, i)
			if err := checkName(field, s.Name); err != nil {
				return err
			}
			if seen[s.Name] {
				return invalid(field, "%q is declared twice", s.Name)
			}
			seen[s.Name] = true
			if s.Kind != "" {
				if err := checkName(fmt.Sprintf("%s[%d].kind", d.key, i), string(s.Kind)); err != nil {
					return err
				}
			}
		}
	}
	if len(ev.Outputs) > MaxDeclared {
		return overLimit("outputs", "%d declared; the limit is %d", len(ev.Outputs), MaxDeclared)
	}
	for i, o := range ev.Outputs {
		if o == "" || !printable(o) {
			return invalid(fmt.Sprintf("outputs[%d]", i), "want a path of printable UTF-8")
		}
	}
	return nil
}

func (ev *Event) validateStep() error {
	if err := nonNegative(intField{"step", ev.Step}, intField{"turn", ev.Turn}, intField{"tin", ev.TokensIn}, intField{"tout", ev.TokensOut},
		intField{"cost", ev.Cost}, intField{"ctx", ev.Context}, intField{"win", ev.Window}); err != nil {
		return err
	}
	if ev.TextDig != "" && (len(ev.TextDig) > MaxDigestLen || !printable(ev.TextDig)) {
		return invalid("tdig", "want a digest of 1 to %d bytes of printable UTF-8", MaxDigestLen)
	}
	if ev.DocSchema != "" && ev.Doc == "" {
		return invalid("doc", "missing; schema %q names the document's schema but there is no document", ev.DocSchema)
	}
	return nil
}

func (ev *Event) validateResult() error {
	if err := checkCallID("call", ev.Call); err != nil {
		return err
	}
	if r := ev.Ref; r != nil {
		if ev.Out != "" {
			return invalid("ref", "a result carries its output inline in out or by reference in ref, not both")
		}
		if !validDigest(r.Digest) {
			return invalid("ref.dig", "got %q; want %q and 64 lower-case hex digits", r.Digest, digestPrefix)
		}
		if r.Size < 0 {
			return invalid("ref.size", "got %d; want 0 or more", r.Size)
		}
	}
	if c := ev.Changes; c != nil && (c.Files < 0 || c.Lines < 0 || c.Hunks < 0) {
		return invalid("chg", "counts of changed files, lines and hunks must be 0 or more")
	}
	if ev.Abandoned && (ev.Err || ev.Out != "" || ev.Ref != nil || ev.Exit != 0 || ev.Verify || ev.Changes != nil) {
		return invalid("abandoned", "an abandoned call did not run, so its result carries no err, out, ref, exit, verify or chg")
	}
	return nil
}

func (ev *Event) validateRound() error {
	if len(ev.Calls) > MaxRoundCalls {
		return overLimit("calls", "%d calls; the limit is %d", len(ev.Calls), MaxRoundCalls)
	}
	if len(ev.Calls) == 0 {
		return invalid("calls", "no calls; want 1 to %d", MaxRoundCalls)
	}
	seen := make(map[string]bool, len(ev.Calls))
	for i, c := range ev.Calls {
		field := fmt.Sprintf("calls[%d]", i)
		if err := checkCallID(field, c); err != nil {
			return err
		}
		if seen[c] {
			return invalid(field, "call %q is listed twice", c)
		}
		seen[c] = true
	}
	if ev.Wait < 0 {
		return invalid("wait", "got %d; want 0 (no deadline) or more", ev.Wait)
	}
	return nil
}

// intField is an integer key and its value, for nonNegative.
type intField struct {
	key string
	v   int64
}

// nonNegative reports the first field below 0.
func nonNegative(fs ...intField) error {
	for _, f := range fs {
		if f.v < 0 {
			return invalid(f.key, "got %d; want 0 or more", f.v)
		}
	}
	return nil
}

func checkCallID(field, id string) error {
	if err := CheckID(id); err != nil {
		return invalid(field, "%v", err)
	}
	return nil
}

func checkName(field, name string) error {
	if err := nameLen(field, name); err != nil {
		return err
	}
	if name == "" || !printable(name) {
		return invalid(field, "want a name of 1 to %d bytes of printable UTF-8", MaxToolLen)
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

// isAbs reports whether p is an absolute POSIX or Windows path.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") ||
		len(p) >= 3 && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// validDigest reports whether d has the form Digest returns.
func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, digestPrefix)
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range []byte(hex) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
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
