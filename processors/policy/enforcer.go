package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/shell"
	"github.com/guardstream/guardstream/internal/workspace"
	"github.com/guardstream/guardstream/processors"
)

// Name is the guard's processor name.
const Name = "policy"

// Rules, as decisions name them in Decision.Rule.
const (
	RulePattern            = "pattern"
	RuleAllowedTools       = "allowed_tools"
	RulePathScope          = "path_scope"
	RuleProtectedPath      = "protected_path"
	RuleArgs               = "args"
	RuleShell              = "shell"
	RuleForbiddenOperation = "forbidden_operation"
	RuleTestEdit           = "test_edit"
	RuleMaxChanges         = "max_changes"
)

// Enforcer is the policy guard's processor. It holds the policy compiled
// (globs expanded, vocabularies as sets) and nothing else, so one Enforcer
// serves every run.
type Enforcer struct {
	p        Policy
	patterns map[string]*compiled
	known    string // the pattern ids, sorted, for messages

	protected         globSet
	protectedAnywhere globSet // protected globs under "**/", for absolute paths without a workspace
	tests             globSet
	safe              globSet

	pathKeys, patchKeys, writeTools, createTools workspace.Set
	shells                                       workspace.Shells
	opTools                                      map[string]opSet
}

// compiled is a pattern ready for checking.
type compiled struct {
	id               string
	allowed          workspace.Set // nil: any tool
	allowedList      string
	include, exclude globSet
	forbidden        opSet
	max              MaxChanges
	testEdits        TestEdits
}

// opSet is a set of operations: bit i stands for Operations()[i].
type opSet uint16

func opBit(op Operation) opSet {
	if i := slices.Index(operations[:], op); i >= 0 {
		return 1 << i
	}
	return 0
}

var (
	deleteFilesBit = opBit(OpDeleteFiles)
	deleteTestsBit = opBit(OpDeleteTests)
)

// first returns the first operation of s, in the order of Operations.
func (s opSet) first() Operation {
	for i, op := range operations {
		if s&(1<<i) != 0 {
			return op
		}
	}
	return ""
}

// shellOps maps what the shell classifier recognises to operations.
var shellOps = []struct {
	sh shell.Op
	op Operation
}{
	{shell.OpGitPush, OpGitPush}, {shell.OpForcePush, OpForcePush}, {shell.OpDelete, OpDeleteFiles},
	{shell.OpNetwork, OpNetwork}, {shell.OpPackageInstall, OpPackageInstall}, {shell.OpSudo, OpSudo},
}

// wholeFileTools are the write tools that create files. Tools that write
// a file whole (write_file) overwrite existing files as often as they
// create new ones, so they are not among them; nor are editor tools,
// unless their "command" argument is "create".
var wholeFileTools = []string{"create_file"}

// editorCommand returns the "command" argument of an editor tool, such as
// "create" for str_replace_based_edit_tool.
func editorCommand(args string) string {
	cmd := ""
	workspace.Strings(args, func(key string) bool { return key == "command" }, func(_, val string) bool {
		cmd = val
		return false
	})
	return cmd
}

// editorAppends reports whether an editor tool's call only adds to a
// file: an insert command, or a replacement whose new text keeps the old
// text whole.
func editorAppends(args string) bool {
	var cmd, old, repl string
	workspace.Strings(args, func(key string) bool { return key == "command" || key == "old_str" || key == "new_str" }, func(key, val string) bool {
		switch key {
		case "command":
			cmd = val
		case "old_str":
			old = val
		case "new_str":
			repl = val
		}
		return true
	})
	return cmd == "insert" || cmd == "str_replace" && old != "" && strings.Contains(repl, old)
}

// New returns an Enforcer for p, which must be valid (see Policy.Validate).
func New(p Policy) *Enforcer {
	e := &Enforcer{
		p:        p,
		patterns: make(map[string]*compiled, len(p.Patterns)),
		known:    strings.Join(sortedKeys(p.Patterns), ", "),

		protected:   mustGlobs(slices.Clone(p.Protected)),
		tests:       mustGlobs(slices.Clone(p.TestGlobs)),
		safe:        mustGlobs(slices.Clone(p.Shell.SafePaths)),
		pathKeys:    workspace.NewSet(p.Vocabulary.PathKeys),
		patchKeys:   workspace.NewSet(p.Vocabulary.PatchKeys),
		writeTools:  workspace.NewSet(p.Vocabulary.WriteTools, p.OperationTools[OpDeleteFiles]),
		createTools: workspace.NewSet(wholeFileTools),
		shells:      p.Vocabulary.Shells(),
		opTools:     map[string]opSet{},
	}
	anywhere := make([]string, len(p.Protected))
	for i, g := range p.Protected {
		anywhere[i] = "**/" + strings.TrimPrefix(g, "/")
	}
	e.protectedAnywhere = mustGlobs(anywhere)
	e.protectedAnywhere.globs = e.protected.globs // name the configured glob
	for op, tools := range p.OperationTools {
		for _, t := range tools {
			e.opTools[t] |= opBit(op)
		}
	}
	for id, pat := range p.Patterns {
		c := &compiled{
			id:          id,
			allowedList: strings.Join(pat.AllowedTools, ", "),
			include:     mustGlobs(slices.Clone(pat.PathScope.Include)),
			exclude:     mustGlobs(slices.Clone(pat.PathScope.Exclude)),
			max:         pat.MaxChanges,
			testEdits:   pat.TestEdits,
		}
		if len(pat.AllowedTools) > 0 {
			c.allowed = workspace.NewSet(pat.AllowedTools)
		}
		for _, op := range pat.ForbiddenOperations {
			c.forbidden |= opBit(op)
		}
		if c.testEdits == "" {
			c.testEdits = TestEditsAdvisory
		}
		e.patterns[id] = c
	}
	return e
}

// Name returns "policy".
func (*Enforcer) Name() string { return Name }

// NewState returns the state of a fresh run.
func (*Enforcer) NewState() processors.State { return &State{} }

// Apply records the run start, checks calls and counts results' changes.
func (e *Enforcer) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindRunStart:
		if s.Started {
			return // the first run start decides
		}
		s.Started, s.Workspace = true, ev.Workspace
		s.Shells = e.shells.Declared(ev.Tools)
		s.Writers = workspace.DeclaredWriters(ev.Tools, e.writeTools)
		s.Pattern = ev.Pattern
		if s.Pattern == "" {
			s.Pattern = e.p.Agents[ev.Agent]
		}
		if s.Pattern == "" {
			s.Pattern = e.p.Default
		}
	case event.KindCall:
		e.call(s, ev, out)
	case event.KindResult:
		e.result(s, ev, out)
	}
}

// pattern returns the run's pattern: nil and ok for a run without one that
// the policy lets go by, ok false for an unknown one.
func (e *Enforcer) pattern(s *State) (c *compiled, id string, ok bool) {
	id = s.Pattern
	if !s.Started {
		id = e.p.Default
	}
	if id == "" {
		return nil, "", !e.p.RequirePattern
	}
	c, ok = e.patterns[id]
	return c, id, ok
}

func (e *Enforcer) unknownPattern(id string) string {
	known := e.known
	if known == "" {
		known = "none"
	}
	if id == "" {
		return "the run names no pattern and the policy requires one; known patterns: " + known
	}
	return fmt.Sprintf("pattern %q is not defined; known patterns: %s", id, known)
}

// check is the checking of one call.
type check struct {
	e     *Enforcer
	pat   *compiled
	root  workspace.Root
	tool  string
	ops   opSet
	shell string // the command, for messages

	s *State

	rule, msg   string // the first rule broken
	testPath    string // the first test file written
	deletedTest string // the first test file deleted
	escape      string // the first path outside the workspace a command names
	escapes     int
	created     []string // test files the call creates
	edited      []string // test files the call changes in place
}

func (c *check) fail(rule, msg string) bool {
	c.rule, c.msg = rule, msg
	return false
}

func (e *Enforcer) call(s *State, ev *event.Event, out *processors.Out) {
	pat, id, ok := e.pattern(s)
	if !ok {
		out.Reject(event.ReasonPolicyViolation, e.unknownPattern(id)).Rule = RulePattern
		return
	}
	if pat != nil && pat.allowed != nil && !pat.allowed.Has(ev.Tool) {
		out.Reject(event.ReasonPolicyViolation,
			fmt.Sprintf("pattern %q does not allow tool %q; allowed tools: %s", pat.id, ev.Tool, pat.allowedList)).Rule = RuleAllowedTools
		return
	}
	c := check{e: e, s: s, pat: pat, root: workspace.NewRoot(s.Workspace), tool: ev.Tool, ops: e.opTools[ev.Tool]}
	how := access{write: e.writeTools.Has(ev.Tool) || slices.Contains(s.Writers, ev.Tool), deletes: c.ops&deleteFilesBit != 0}
	how.create = how.write && !how.deletes && (e.createTools.Has(ev.Tool) || editorCommand(ev.Args) == "create")
	how.append = how.write && !how.deletes && !how.create && editorAppends(ev.Args)
	isShell := e.shells.Is(ev.Tool, s.Shells)

	wellFormed := workspace.CallPaths(c.root, ev.Path, ev.Args, e.pathKeys, func(raw, rel string, inside bool) bool {
		return c.path(raw, rel, inside, how)
	})
	if how.write && c.rule == "" && wellFormed {
		c.patches(ev.Args, how.deletes)
	}
	switch {
	case c.rule != "":
	case !wellFormed && (how.write || isShell):
		c.fail(RuleArgs, fmt.Sprintf("the arguments of %s are not a JSON object, so the paths it touches cannot be checked", ev.Tool))
	case isShell:
		c.command(ev.Args, s.Shells)
	}
	if c.rule == "" && pat != nil {
		if c.deletedTest != "" {
			c.ops |= deleteTestsBit
		}
		if hit := c.ops & pat.forbidden; hit != 0 {
			c.forbidden(hit.first())
		}
	}
	if c.rule == "" && c.testPath != "" && pat != nil && pat.testEdits == TestEditsStrict {
		c.fail(RuleTestEdit, fmt.Sprintf("pattern %q forbids editing test files: %s writes %q", pat.id, ev.Tool, c.testPath))
	}
	if c.rule != "" {
		out.Reject(event.ReasonPolicyViolation, c.msg).Rule = c.rule
		return
	}
	for _, p := range c.created {
		s.Scratch = remember(s.Scratch, p)
	}
	for _, p := range c.edited {
		s.Edited = remember(s.Edited, p)
	}
	if c.testPath != "" && (pat == nil || pat.testEdits == TestEditsAdvisory) {
		out.Advise(event.Steer{Kind: event.SteerTestEdit, Tool: ev.Tool},
			fmt.Sprintf("%s writes the test file %q: make sure the test, not the code, is what needs to change", ev.Tool, c.testPath))
	}
	if c.escapes > 0 && e.p.Shell.PathEscape {
		msg := fmt.Sprintf("the %s command reaches outside the workspace: %s", ev.Tool, c.escape)
		if c.escapes > 1 {
			msg += fmt.Sprintf(" and %d more", c.escapes-1)
		}
		out.Advise(event.Steer{Kind: event.SteerPathEscape, Tool: ev.Tool}, msg, processors.Count("paths", c.escapes))
	}
}

// access is how a call touches a path.
type access struct {
	write   bool
	deletes bool // it removes the path (with what lies under it)
	create  bool // it creates the file whole, rather than changing it in place
	append  bool // it only adds lines to the file, changing none it has
	byShell bool // a shell command names it
	names   []string
}

// path checks one path the call writes or names and reports whether the
// checking goes on.
func (c *check) path(raw, rel string, inside bool, how access) bool {
	write, deletes := how.write, how.deletes
	if !inside {
		if how.byShell {
			return true // the command's paths outside the workspace are advised
		}
		return c.fail(RulePathScope, fmt.Sprintf("%s %s %q, which escapes the workspace%s", c.tool, verb(write), raw, c.wsNote()))
	}
	if write {
		if g, ok := c.e.protects(rel, deletes, how.names); ok {
			return c.fail(RuleProtectedPath, fmt.Sprintf("%s writes %q, which is protected (%s) and never writable%s", c.tool, rel, g, c.via()))
		}
	}
	if p := c.pat; p != nil {
		if g, ok := p.exclude.match(rel); ok {
			return c.fail(RulePathScope, fmt.Sprintf("%s %s %q, which pattern %q excludes (path_scope.exclude %s)%s", c.tool, verb(write), rel, p.id, g, c.via()))
		}
		if !p.include.empty() {
			if _, ok := p.include.match(rel); !ok {
				return c.fail(RulePathScope, fmt.Sprintf("%s %s %q, which is outside the scope of pattern %q (path_scope.include: %s)%s",
					c.tool, verb(write), rel, p.id, strings.Join(p.include.globs, ", "), c.via()))
			}
		}
	}
	if write && len(how.names) == 0 {
		if _, ok := c.e.tests.match(rel); ok {
			c.testWrite(rel, how)
		}
	}
	return true
}

// testWrite notes a write of the test file rel. A file the run created
// itself (a scratch script, or a new test it is writing) is the run's own:
// writing or deleting it draws no advice. Creating a file whole, when the
// run has not edited it in place before, creates such a file. Adding
// lines to a project's test file (a new test appended or inserted)
// changes none of its expectations: no advice either, though a pattern
// that forbids test edits still refuses it.
func (c *check) testWrite(rel string, how access) {
	switch {
	case slices.Contains(c.s.Scratch, rel):
	case how.create && !slices.Contains(c.s.Edited, rel):
		c.created = append(c.created, rel)
	case how.append && (c.pat == nil || c.pat.testEdits != TestEditsStrict):
		c.edited = append(c.edited, rel)
	default:
		if c.testPath == "" {
			c.testPath = rel
		}
		if how.deletes && c.deletedTest == "" {
			c.deletedTest = rel
		}
		if !how.deletes {
			c.edited = append(c.edited, rel)
		}
	}
}

// patches checks the paths of the patches in a write tool's arguments.
func (c *check) patches(args string, deletes bool) {
	workspace.Strings(args, c.e.patchKeys.Has, func(_, text string) bool {
		workspace.PatchPaths(text, func(p string, deleted bool) bool {
			if deleted {
				c.ops |= deleteFilesBit
			}
			rel, inside := c.root.Rel(p)
			return c.path(p, rel, inside, access{write: true, deletes: deletes || deleted})
		})
		return c.rule == ""
	})
}

// protects returns the protected glob that a write of rel would touch; a
// deletion of rel also touches what lies under it, or, when names are
// given (a find that deletes by name), the files so named under it.
func (e *Enforcer) protects(rel string, deletes bool, names []string) (string, bool) {
	if g, ok := e.protected.match(rel); ok {
		return g, true
	}
	if strings.HasPrefix(rel, "/") {
		return e.protectedAnywhere.match(rel) // no workspace: the path as given
	}
	switch {
	case !deletes:
		return "", false
	case len(names) > 0:
		return e.protected.coversNamed(rel, names)
	}
	return e.protected.covers(rel)
}

func verb(write bool) string {
	if write {
		return "writes"
	}
	return "names"
}

func (c *check) wsNote() string {
	if d := c.root.Dir(); d != "" {
		return " (" + d + ")"
	}
	return ""
}

// via says, in messages about a shell command's paths, which command.
func (c *check) via() string {
	if c.shell == "" {
		return ""
	}
	return " in `" + abbrev(c.shell) + "`"
}

// command checks the shell command in args, a call of a shell tool.
func (c *check) command(args string, declared []string) {
	cmd, argv, found := c.e.shells.Command(c.tool, args, declared)
	if !found {
		return
	}
	var a shell.Analysis
	if argv != nil {
		a = shell.AnalyzeArgv(argv, c.root.Dir())
		cmd = strings.Join(argv, " ")
	} else {
		a = shell.Analyze(cmd, c.root.Dir())
	}
	c.shell = cmd
	if a.Dangerous() && c.e.p.Shell.Destructive {
		d := a.Danger
		c.fail(RuleShell, fmt.Sprintf("destructive shell command refused (%s): `%s` would destroy %s", d.Rule, abbrev(d.Command), d.What))
		return
	}
	for _, m := range shellOps {
		if a.Ops.Has(m.sh) {
			c.ops |= opBit(m.op)
		}
	}
	for _, t := range a.Writes {
		rel, inside := c.root.Rel(t.Path)
		if !c.path(t.Path, rel, inside, access{write: true, deletes: t.Delete, create: t.Create, append: t.Append, byShell: true, names: t.Names}) {
			return
		}
	}
	if c.root.Dir() == "" {
		return // no workspace to escape
	}
	for _, p := range a.Paths {
		if _, inside := c.root.Rel(p); inside {
			continue
		}
		if _, safe := c.e.safe.match(path.Clean(p)); safe {
			continue
		}
		if c.escapes++; c.escape == "" {
			c.escape = p
		}
	}
}

func (c *check) forbidden(op Operation) {
	var how string
	switch {
	case op == OpDeleteTests:
		how = fmt.Sprintf("%s deletes the test file %q", c.tool, c.deletedTest)
	case c.shell != "":
		how = fmt.Sprintf("%s runs `%s`", c.tool, abbrev(c.shell))
	default:
		how = fmt.Sprintf("tool %s performs it", c.tool)
	}
	c.fail(RuleForbiddenOperation, fmt.Sprintf("pattern %q forbids %s: %s", c.pat.id, op, how))
}

func abbrev(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

// result counts the changes a result reports and stops the run when they
// touch a protected path or pass the pattern's limits.
func (e *Enforcer) result(s *State, ev *event.Event, out *processors.Out) {
	chg := ev.Changes
	if chg == nil {
		return
	}
	root := workspace.NewRoot(s.Workspace)
	s.Lines, s.Hunks = satAdd(s.Lines, max(chg.Lines, 0)), satAdd(s.Hunks, max(chg.Hunks, 0))
	protected, protectedBy := "", ""
	if len(chg.Paths) == 0 {
		s.Unlisted = satAdd(s.Unlisted, max(chg.Files, 0))
	}
	for _, p := range chg.Paths {
		if p == "" {
			continue
		}
		rel, _ := root.Rel(p)
		s.addPath(rel)
		if g, ok := e.protects(rel, false, nil); ok && protected == "" {
			protected, protectedBy = rel, g
		}
	}
	counts := func() []event.Counter {
		return []event.Counter{processors.Count("files", s.Files()), processors.Count("lines", s.Lines), processors.Count("hunks", s.Hunks)}
	}
	if protected != "" {
		out.Stop(event.ReasonPolicyViolation, event.StatusFailed,
			fmt.Sprintf("call %s changed %q, which is protected (%s) and never writable", ev.Call, protected, protectedBy),
			counts()...).Rule = RuleProtectedPath
		return
	}
	pat, _, ok := e.pattern(s)
	if !ok || pat == nil {
		return
	}
	m := pat.max
	for _, l := range []struct {
		name       string
		got, limit int64
	}{{"files", s.Files(), m.Files}, {"lines", s.Lines, m.Lines}, {"hunks", s.Hunks, m.Hunks}} {
		if l.limit > 0 && l.got > l.limit {
			out.Stop(event.ReasonPolicyViolation, event.StatusFailed,
				fmt.Sprintf("the run changed %d %s, more than pattern %q allows (max_changes.%s %d)", l.got, l.name, pat.id, l.name, l.limit),
				append(counts(), processors.Count("max_"+l.name, l.limit))...).Rule = RuleMaxChanges
			return
		}
	}
}
