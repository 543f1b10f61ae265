package output

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/guardstream/guardstream/processors"
)

// Name is the processor's name.
const Name = "output"

// ZeroResultsMsg is the message of the zero_results advice.
const ZeroResultsMsg = "no matches found; try listing the directory, check alternate naming, or broaden the filter"

// Bounder is the output-bounding processor.
type Bounder struct {
	p      Policy
	tools  map[string]Caps
	search map[string]bool
}

// New returns a bounder with policy p, which must be valid.
func New(p Policy) *Bounder {
	b := &Bounder{p: p, tools: maps.Clone(p.Tools), search: make(map[string]bool, len(p.SearchTools))}
	for _, t := range p.SearchTools {
		b.search[t] = true
	}
	return b
}

// Name returns "output".
func (*Bounder) Name() string { return Name }

// NewState returns the state of a fresh run.
func (*Bounder) NewState() processors.State { return &State{} }

// Apply remembers the run's workspace and the tools of calls it will need,
// and bounds every result.
func (b *Bounder) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindRunStart:
		s.Workspace = ev.Workspace
	case event.KindCall:
		if _, ok := b.tools[ev.Tool]; ok || b.search[ev.Tool] {
			s.remember(ev.Call, ev.Tool)
		}
	case event.KindResult:
		b.result(s, ev, out)
	}
}

// caps returns the caps for tool's outputs.
func (b *Bounder) caps(tool string) (lines, bytes int) {
	lines, bytes = b.p.MaxLines, b.p.MaxBytes
	if c, ok := b.tools[tool]; ok {
		if c.MaxLines != 0 {
			lines = c.MaxLines
		}
		if c.MaxBytes != 0 {
			bytes = c.MaxBytes
		}
	}
	return lines, bytes
}

func (b *Bounder) result(s *State, ev *event.Event, out *processors.Out) {
	tool := s.take(ev.Call)
	if ev.Abandoned {
		return // the call never ran: there is no output to show, and no search came back empty
	}
	if tool == "" {
		tool = ev.Tool
	}
	if r := ev.Ref; r != nil && int64(len(ev.Out)) != r.Size {
		// The runner could not load the output: say where it is.
		ref := *r
		d := out.Emit(event.Output, fmt.Sprintf("the output was not loaded; it is %s (%d bytes) in the object store", ref.Digest, ref.Size))
		d.View = fmt.Sprintf("[output not shown: full output %s (%d bytes) is in the object store]", ref.Digest, ref.Size)
		d.Ref, d.Trunc, d.Rule = &ref, &event.Truncation{TotalBytes: ref.Size}, "output_not_loaded"
		return
	}

	var ref event.OutputRef
	if ev.Ref != nil {
		ref = *ev.Ref
	} else {
		ref = event.OutputRef{Digest: event.Digest([]byte(ev.Out)), Size: int64(len(ev.Out))}
	}
	lines, bytes := b.caps(tool)
	v := view.OfString(ev.Out, view.Options{MaxLines: lines, MaxBytes: bytes, Workspace: s.Workspace, Digest: ref.Digest})
	d := out.Emit(event.Output, summary(&v))
	d.View, d.Ref, d.Trunc = v.Text, &ref, &v.Trunc

	if !ev.Err && b.search[tool] && strings.TrimSpace(ev.Out) == "" {
		out.Advise(event.Steer{Kind: event.SteerZeroResults, Tool: tool}, ZeroResultsMsg)
	}
}

// summary describes a view for operators, such as "lines 1-500 of 20000
// shown, 19500 more". It is written with strconv rather than fmt: one in
// three events is a result, and fmt was a seventh of the output guard's
// time.
func summary(v *view.View) string {
	t := v.Trunc
	var buf [64]byte // room for the usual summary; a longer one grows onto the heap
	b := buf[:0]
	switch {
	case t.TotalLines == 0:
		return "empty output"
	case t.TotalLines == 1 && !v.Cut:
		b = strconv.AppendInt(append(b, "the only line shown ("...), t.TotalBytes, 10)
		return string(append(b, " bytes)"...))
	case !t.HasMore && !v.Cut && t.Offset == 0:
		b = strconv.AppendInt(append(b, "all "...), t.TotalLines, 10)
		b = strconv.AppendInt(append(b, " lines shown ("...), t.TotalBytes, 10)
		return string(append(b, " bytes)"...))
	}
	b = strconv.AppendInt(append(b, "lines "...), t.Offset+1, 10)
	b = strconv.AppendInt(append(b, '-'), t.Offset+t.LinesShown, 10)
	b = strconv.AppendInt(append(b, " of "...), t.TotalLines, 10)
	b = strconv.AppendInt(append(b, " shown, "...), t.LinesRemaining, 10)
	b = append(b, " more"...)
	if v.Cut {
		b = strconv.AppendInt(append(b, "; line "...), t.Offset+1, 10)
		b = append(b, " cut"...)
	}
	return string(b)
}
