package schema

import (
	"fmt"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/schema/repair"
)

// Name is the guard's processor name.
const Name = "schema"

// Guard is the schema processor. It holds the policy's settings and
// compiled registries and a memo of the schemas runs declare; the
// registries and the memo only speed it up, so one Guard serves every run
// and goroutine.
type Guard struct {
	maxAttempts   int
	opts          repair.Options
	checkJSON     bool // Policy.Schemaless is SchemalessJSON
	rejectUnknown bool // Policy.UnknownTools is UnknownReject
	def           *registry
	classes       map[string]*registry
	memo          *memo
}

// New returns a guard with policy p, which should be valid: a registered
// schema that does not compile makes every call of its tool (or every
// document of its name) invalid.
func New(p Policy) *Guard {
	g := &Guard{
		maxAttempts:   p.MaxAttempts,
		opts:          p.options(),
		checkJSON:     p.Schemaless == SchemalessJSON,
		rejectUnknown: p.UnknownTools == UnknownReject,
		def:           &registry{tools: compileCatalog(p.Default.Tools), docs: compileCatalog(p.Default.Docs)},
		classes:       make(map[string]*registry, len(p.Agents)),
		memo:          &memo{},
	}
	for class, r := range p.Agents {
		g.classes[class] = &registry{
			tools: compileCatalog(p.Default.Tools, r.Tools),
			docs:  compileCatalog(p.Default.Docs, r.Docs),
		}
	}
	return g
}

// Name returns "schema".
func (*Guard) Name() string { return Name }

// NewState returns the state of a fresh run.
func (*Guard) NewState() processors.State { return &State{} }

// Apply records a run start's declarations, and checks calls and the
// documents of steps.
func (g *Guard) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindRunStart:
		s.Agent, s.Tools, s.Docs = ev.Agent, declare(ev.Tools), declare(ev.Docs)
	case event.KindCall:
		g.call(s, ev, out)
	case event.KindStep:
		if ev.DocSchema != "" {
			g.doc(s, ev, out)
		}
	}
}

func (g *Guard) registry(agent string) *registry {
	if r, ok := g.classes[agent]; ok {
		return r
	}
	return g.def
}

// call checks a call: against its tool's schema; as an unknown tool when
// the run registers tools but not this one; or, for a tool without a
// schema, its JSON syntax.
func (g *Guard) call(s *State, ev *event.Event, out *processors.Out) {
	cat := &g.registry(s.Agent).tools
	sub := subject{name: ev.Tool, count: &s.InvalidCalls, reason: event.ReasonInvalidArgs}
	sch, ok := cat.lookup(s.Tools, ev.Tool, g.memo)
	switch {
	case ok:
		g.judge(out, ev, sub, sch.Check(ev.Args, &g.opts), sch.Broken())
	case !cat.empty(s.Tools) && g.rejectUnknown:
		names := cat.allNames(s.Tools)
		near := nearest(ev.Tool, names, maxNear)
		g.invalid(sub.count, out, ev, event.ReasonUnknownTool, unknownToolMsg(ev.Tool, near, names), nil, near)
	case g.checkJSON:
		g.judge(out, ev, sub, repair.CheckSyntax(ev.Args, &g.opts), "")
	}
}

// doc checks a step's document against its schema. A run for which no
// document schema is registered has its documents unchecked.
func (g *Guard) doc(s *State, ev *event.Event, out *processors.Out) {
	cat := &g.registry(s.Agent).docs
	if cat.empty(s.Docs) {
		return
	}
	sub := subject{name: ev.DocSchema, count: &s.InvalidDocs, reason: event.ReasonInvalidOutput}
	sch, ok := cat.lookup(s.Docs, ev.DocSchema, g.memo)
	if !ok {
		names := cat.allNames(s.Docs)
		msg := fmt.Sprintf("no document schema named %s; declared: %s", ev.DocSchema, strings.Join(limitNames(names, maxListed), ", "))
		diag := event.Diag{Want: "a declared document schema", Got: "schema " + ev.DocSchema, Msg: msg}
		g.invalid(sub.count, out, ev, sub.reason, msg, []event.Diag{diag}, nil)
		return
	}
	g.judge(out, ev, sub, sch.Check(ev.Doc, &g.opts), sch.Broken())
}

// subject is what one check is about: a call's arguments, or a step's
// document.
type subject struct {
	name   string       // the tool, or the document schema
	count  *int         // invalid ones in a row
	reason event.Reason // for text that cannot be repaired
}

// judge decides on the result r of checking sub; broken is why its schema
// does not compile, if it does not.
func (g *Guard) judge(out *processors.Out, ev *event.Event, sub subject, r repair.Result, broken string) {
	isCall := ev.Kind == event.KindCall
	switch {
	case r.Status == repair.Valid:
		*sub.count = 0
	case r.Status == repair.Repaired:
		*sub.count = 0
		what := "the " + sub.name + " document"
		if isCall {
			what = "the arguments of " + sub.name
		}
		d := out.Repair(r.Args, repairedMsg(what, r))
		d.Diags = r.Diags
	case broken != "":
		msg := fmt.Sprintf("the document schema %s does not compile, so its documents cannot be checked: %s", sub.name, broken)
		if isCall {
			msg = fmt.Sprintf("the schema of tool %s does not compile, so its calls cannot be checked: %s", sub.name, broken)
		}
		g.invalid(sub.count, out, ev, sub.reason, msg, r.Diags, nil)
	default:
		what := "invalid " + sub.name + " document"
		if isCall {
			what = "invalid arguments for " + sub.name
		}
		g.invalid(sub.count, out, ev, sub.reason, invalidMsg(what, r), r.Diags, nil)
	}
}

// invalid counts an invalid call or document in a row and refuses it, or,
// past the policy's attempts, stops the run. The refusal that uses up the
// last attempt of a call comes with a fix_args constraint, so the agent
// loop learns before its next step that one more invalid call ends the run;
// earlier refusals carry their diagnostics already and get no advice.
func (g *Guard) invalid(count *int, out *processors.Out, ev *event.Event, reason event.Reason, msg string, diags []event.Diag, near []string) {
	*count++
	n, limit := *count, g.maxAttempts
	what := "calls"
	if ev.Kind != event.KindCall {
		what = "documents"
	}
	if limit > 0 && n > limit {
		d := out.Stop(event.ReasonSystemError, event.StatusFailed,
			fmt.Sprintf("%d invalid %s in a row, after %d repair attempts; the last: %s", n, what, limit, msg),
			processors.Count("invalid", n), processors.Count("max_attempts", limit))
		d.Diags, d.Near = diags, near
		return
	}
	if limit > 0 && n == limit && ev.Kind == event.KindCall {
		fix := "correct the arguments as the diagnostics say"
		if reason == event.ReasonUnknownTool {
			fix = "call one of the registered tools"
		}
		d := out.Advise(event.Steer{Kind: event.SteerFixArgs, Tool: ev.Tool},
			fmt.Sprintf("%d invalid calls in a row; %s: one more invalid call stops the run", n, fix),
			processors.Count("invalid", n), processors.Count("max_attempts", limit))
		d.Diags = diags
	}
	d := out.Reject(reason, msg, processors.Count("invalid", n))
	d.Diags, d.Near = diags, near
}

// maxListed is how many names a message lists.
const maxListed = 10

func limitNames(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(names[:n:n], fmt.Sprintf("and %d more", len(names)-n))
}

func unknownToolMsg(tool string, near, all []string) string {
	if len(near) > 0 {
		return fmt.Sprintf("no tool named %s; did you mean %s?", tool, orList(near))
	}
	return fmt.Sprintf("no tool named %s; the registered tools are %s", tool, strings.Join(limitNames(all, maxListed), ", "))
}

// orList renders names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// invalidMsg summarises the first failure.
func invalidMsg(what string, r repair.Result) string {
	if len(r.Diags) == 0 {
		return what
	}
	msg := what + ": " + r.Diags[0].Msg
	if r.Count > 1 {
		msg += fmt.Sprintf(" (and %d more)", r.Count-1)
	}
	return msg
}

// repairedMsg lists the first repairs made.
func repairedMsg(what string, r repair.Result) string {
	const listed = 3
	msgs := make([]string, 0, listed)
	for i := 0; i < len(r.Diags) && i < listed; i++ {
		msgs = append(msgs, r.Diags[i].Msg)
	}
	msg := "repaired " + what + ": " + strings.Join(msgs, "; ")
	if r.Count > listed {
		msg += fmt.Sprintf("; and %d more", r.Count-listed)
	}
	return msg
}
