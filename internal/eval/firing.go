package eval

import (
	"fmt"
	"strconv"

	"github.com/guardstream/guardstream/event"
)

// Key names what a decision did, for counting: its kind and what tells
// decisions of that kind apart, such as "stop LIMIT_EXCEEDED/max_steps",
// "reject POLICY_VIOLATION/shell", "advise vary_approach" or "pressure 85".
// Decisions that only let the run go on (allow, output, settled, stale)
// have no key.
func Key(d *event.Decision) string {
	switch d.Kind {
	case event.Stop, event.Reject:
		if d.Rule != "" && d.Rule != d.Guard { // a guard's only rule is named after it
			return d.Kind.String() + " " + string(d.Reason) + "/" + d.Rule
		}
		return d.Kind.String() + " " + string(d.Reason)
	case event.Advise:
		if d.Steer == nil {
			return "advise"
		}
		if d.Rule != "" && d.Rule != d.Guard {
			return "advise " + string(d.Steer.Kind) + "/" + d.Rule
		}
		return "advise " + string(d.Steer.Kind)
	case event.Repair, event.Defer:
		return d.Kind.String() + " " + d.Guard
	case event.Pressure:
		return "pressure " + strconv.FormatInt(d.Level, 10)
	}
	return ""
}

// describe renders an event in one line for examples.
func describe(ev *event.Event) string {
	switch ev.Kind {
	case event.KindStep:
		return fmt.Sprintf("#%d step %d", ev.Seq, ev.Step)
	case event.KindCall:
		return fmt.Sprintf("#%d call %s %s %s", ev.Seq, ev.Call, ev.Tool, clip(ev.Args, 240))
	case event.KindResult:
		s := fmt.Sprintf("#%d result %s", ev.Seq, ev.Call)
		if ev.Err {
			s += " err"
		}
		if ev.Exit != 0 {
			s += " exit " + strconv.FormatInt(ev.Exit, 10)
		}
		if ev.Verify {
			s += " verify"
		}
		return s + ": " + clip(ev.Out, 160)
	case event.KindRunEnd:
		return fmt.Sprintf("#%d run_end %s", ev.Seq, ev.Status)
	case event.KindRunStart:
		return fmt.Sprintf("#%d run_start %s", ev.Seq, ev.Agent)
	}
	return fmt.Sprintf("#%d %s", ev.Seq, ev.Kind)
}

// clip shortens s to about n bytes on one line.
func clip(s string, n int) string {
	b := make([]byte, 0, min(len(s), n)+3)
	for i := 0; i < len(s) && len(b) < n; i++ {
		switch c := s[i]; c {
		case '\n':
			b = append(b, '\\', 'n')
		case '\r', '\t':
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	if len(b) >= n && len(s) > n {
		for len(b) > 0 && b[len(b)-1]&0xC0 == 0x80 { // do not cut a rune
			b = b[:len(b)-1]
		}
		if len(b) > 0 && b[len(b)-1] >= 0xC0 {
			b = b[:len(b)-1]
		}
		b = append(b, "..."...)
	}
	return string(b)
}
