package guard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors/loop"
)

// The reference designs are specifications, not code: their cases are the
// checks they state ("How to verify", exit criteria, the behaviour a pull
// request lists), ported one by one.

// readSchema declares read_file's arguments.
const readSchema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`

// declareRead makes the run declare read_file and grep with schemas.
func declareRead(s *script) *script {
	s.h.Events()[0].Tools = []event.Schema{{Name: "read_file", Schema: readSchema}, {Name: "grep", Schema: `{"type":"object"}`}}
	return s
}

// TestPresetRuntimeSpec ports "How to verify" of
// ../shared/reference/000_5ab86c6fcd24e8d7.txt, the runtime guardrails
// spec.
func TestPresetRuntimeSpec(t *testing.T) {
	long := strings.Repeat("line\n", 600)
	runPorted(t, "runtime-spec", []ported{
		{
			from: "Repeat the same action signature 3 times and confirm a typed override is injected; repeat again and confirm SYSTEM_ERROR",
			script: func() *script {
				s := newScript("r").exec("", "read_file", `{"path":"a.go"}`, false, "x").exec("", "read_file", `{"path":"a.go"}`, false, "x")
				return s.call("3rd", "read_file", `{"path":"a.go"}`).call("4th", "read_file", `{"path":"a.go"}`)
			},
			want: map[string]string{"3rd": "advise:override reject:LOOP_DETECTED", "4th": "stop:SYSTEM_ERROR"},
		},
		{
			from: "the signature includes the target path: the same arguments on another path are another action",
			script: func() *script {
				s := newScript("r")
				for _, p := range []string{"a.go", "b.go", "a.go"} {
					s.callAt("", "edit_file", `{"old":"x","new":"y"}`, p).result("", false, "ok")
				}
				return s
			},
		},
		{
			from: "Emit invalid JSON in a tool args payload and confirm repair attempts are enforced and stop after the limit",
			script: func() *script {
				s := declareRead(newScript("r"))
				return s.call("1st", "read_file", `{"path":`).call("2nd", "read_file", `{"path":`).call("3rd", "read_file", `{"path":`)
			},
			want: map[string]string{"1st": "reject:INVALID_ARGS", "2nd": "advise:fix_args reject:INVALID_ARGS", "3rd": "stop:SYSTEM_ERROR"},
		},
		{
			from: "Call an unknown tool and confirm a typed error event is emitted and correction is required",
			script: func() *script {
				return declareRead(newScript("r")).call("unknown", "read_files", `{"path":"a.go"}`)
			},
			want: map[string]string{"unknown": "reject:UNKNOWN_TOOL"},
		},
		{
			from:    "Read a file >500 lines and confirm output is truncated with pagination metadata",
			outputs: true,
			script: func() *script {
				return newScript("r").call("", "read_file", `{"path":"big.txt"}`).result("result", false, long)
			},
			want: map[string]string{"result": "output:more"},
		},
		{
			from:    "Run a search that yields zero results and confirm the guidance message is returned",
			outputs: true,
			script: func() *script {
				return newScript("r").call("", "grep", `{"pattern":"nothing"}`).result("result", false, "")
			},
			want: map[string]string{"result": "output advise:zero_results"},
		},
	})
}

// TestPresetAOS ports the exit criteria of
// ../shared/reference/001_a5cc632676403a83.txt, aos P2.3.
func TestPresetAOS(t *testing.T) {
	same := func(s *script, n int, labels map[int]string) *script {
		repeat(n, func(i int) { s.call(labels[i+1], "read_file", `{"path":"a.go"}`).result("", false, "x") })
		return s
	}
	action := func(a loop.Action) func(*guard.Policy) { return func(p *guard.Policy) { p.Loop.Action = a } }
	runPorted(t, "aos", []ported{
		{
			from:   "4. loop detection triggers the configured policy: inject_steer",
			script: func() *script { return same(newScript("r"), 6, map[int]string{3: "3rd", 5: "5th", 6: "6th"}) },
			want:   map[string]string{"3rd": "advise:avoid_repeat allow", "5th": "advise:override reject:LOOP_DETECTED", "6th": "stop:SYSTEM_ERROR"},
		},
		{
			from:   "4. loop detection triggers the configured policy: fail",
			mod:    action(loop.ActionFail),
			script: func() *script { return same(newScript("r"), 5, map[int]string{3: "3rd", 5: "5th"}) },
			want:   map[string]string{"3rd": "advise:avoid_repeat allow", "5th": "stop:LOOP_DETECTED"},
		},
		{
			from:   "4. loop detection triggers the configured policy: complete_with_warning",
			mod:    action(loop.ActionCompleteWithWarning),
			script: func() *script { return same(newScript("r"), 5, map[int]string{3: "3rd", 5: "5th"}) },
			want:   map[string]string{"3rd": "advise:avoid_repeat allow", "5th": "stop:LOOP_DETECTED(completed)"},
		},
		{
			from: "3. limit exceed paths produce canonical terminal reasons: max tool calls per step (set to 16)",
			mod:  func(p *guard.Policy) { p.Budget.MaxToolCallsPerStep.Max = 16 },
			script: func() *script {
				s := newScript("r")
				s.h.Step()
				repeat(17, func(i int) {
					s.h.Call("grep", fmt.Sprintf(`{"q":%d}`, i))
					s.label(map[int]string{16: "17th"}[i])
					s.h.Result(false, "x")
				})
				return s
			},
			want: map[string]string{"17th": "stop:LIMIT_EXCEEDED"},
		},
		{
			from: "backpressure is deterministic: beyond max in-flight calls, fan-out is deferred until receipts drop it",
			script: func() *script {
				s := newScript("r")
				s.h.Step()
				repeat(9, func(i int) { s.h.Call("grep", fmt.Sprintf(`{"q":%d}`, i)); s.label(map[int]string{8: "9th"}[i]) })
				s.h.ResultOf("c1", false, "x")
				s.label("receipt")
				return s
			},
			want: map[string]string{"9th": "defer", "receipt": "allow"},
		},
		{
			from: "context pressure: standardized threshold events at 70/85/95%",
			script: func() *script {
				s := newScript("r")
				for _, ctx := range []int64{50, 72, 90, 96} {
					s.add(fmt.Sprint(ctx), event.Event{Kind: event.KindStep, Context: ctx * 1000, Window: 100_000})
				}
				return s
			},
			want: map[string]string{"72": "pressure", "90": "pressure", "96": "pressure"},
		},
	})
}

// TestPresetGlue ports the tests erain/glue PR #352 lists
// (../shared/reference/004_e5922d1603b80d60.txt, merged as cc3f98c):
// nudge-then-halt for both detectors, reset on different arguments, reset
// on success, disabled passthrough, the nudge's shape, and the round rule
// of its commit message.
func TestPresetGlue(t *testing.T) {
	rounds := func(s *script, n int, args func(i int) string, failed bool, labels map[int]string) *script {
		repeat(n, func(i int) { s.call("", "bash", args(i)).result(labels[i+1], failed, "out") })
		return s
	}
	same := func(int) string { return `{"cmd":"ls"}` }
	varied := func(i int) string { return fmt.Sprintf(`{"cmd":"make %d"}`, i) }
	runPorted(t, "glue", []ported{
		{
			from:   "identical call: a corrective message at 3, ErrRepeatedToolCalls at 5 (judged when the round ends)",
			script: func() *script { return rounds(newScript("r"), 5, same, false, map[int]string{3: "3rd", 5: "5th"}) },
			want:   map[string]string{"3rd": "advise:avoid_repeat", "5th": "stop:LOOP_DETECTED"},
		},
		{
			from: "identical call: any change of arguments resets the streak",
			script: func() *script {
				s := rounds(newScript("r"), 2, same, false, nil).exec("", "bash", `{"cmd":"pwd"}`, false, "out")
				return rounds(s, 2, same, false, nil)
			},
		},
		{
			from: "identical call: a round of several calls resets the streak",
			script: func() *script {
				s := rounds(newScript("r"), 2, same, false, nil)
				s.h.Step()
				s.h.Call("bash", `{"cmd":"ls"}`).Call("bash", `{"cmd":"pwd"}`).ResultOf("c3", false, "out").ResultOf("c4", false, "out")
				return rounds(s, 2, same, false, nil)
			},
		},
		{
			from:   "consecutive mistakes: a corrective message at 3, ErrTooManyMistakes at 6",
			script: func() *script { return rounds(newScript("r"), 6, varied, true, map[int]string{3: "3rd", 6: "6th"}) },
			want:   map[string]string{"3rd": "advise:read_errors", "6th": "stop:TOO_MANY_MISTAKES"},
		},
		{
			from: "consecutive mistakes: any success resets",
			script: func() *script {
				s := rounds(newScript("r"), 2, varied, true, nil).exec("", "bash", `{"cmd":"true"}`, false, "ok")
				return rounds(s, 2, func(i int) string { return varied(i + 10) }, true, nil)
			},
		},
		{
			from: "disabled passthrough: 50 identical calls are not halted (TestRunMaxTurnsDefaultIs32)",
			mod: func(p *guard.Policy) {
				rule(p, "identical_call").Disabled = true
				rule(p, "mistakes").Disabled = true
			},
			script: func() *script { return rounds(newScript("r"), 50, same, false, nil) },
		},
	})
}

// TestPresetZkit ports the guardrails zkit's chain documents
// (../shared/reference/002_1731f9885aa0661b.txt): schema, decompose, memo
// and fan-out.
func TestPresetZkit(t *testing.T) {
	// grepSchema declares a grep whose arguments are camelCase, with an
	// integer limit.
	const grepSchema = `{"type":"object","properties":{"filePath":{"type":"string"},"pattern":{"type":"string"},"maxResults":{"type":"integer"}},` +
		`"required":["filePath","pattern"],"additionalProperties":false}`
	declareGrep := func(s *script) *script {
		s.h.Events()[0].Tools = []event.Schema{{Name: "grep", Schema: grepSchema}}
		return s
	}
	runPorted(t, "zkit", []ported{
		{
			from:  "schema: cheap repairs first, a snake_case key renamed to the schema's camelCase",
			diags: true,
			script: func() *script {
				return declareGrep(newScript("r")).call("renamed", "grep", `{"file_path":"a.go","pattern":"x"}`)
			},
			want: map[string]string{"renamed": "repair[/file_path]"},
		},
		{
			from:  "schema: cheap repairs first, a string coerced to the integer the schema wants",
			diags: true,
			script: func() *script {
				return declareGrep(newScript("r")).call("coerced", "grep", `{"filePath":"a.go","pattern":"x","maxResults":"20"}`)
			},
			want: map[string]string{"coerced": "repair[/maxResults]"},
		},
		{
			from:  "schema: what cannot be repaired comes back naming the failing field",
			diags: true,
			script: func() *script {
				return declareGrep(newScript("r")).call("refused", "grep", `{"filePath":"a.go","pattern":["x","y"]}`)
			},
			want: map[string]string{"refused": "reject:INVALID_ARGS[/pattern]"},
		},
		{
			from: "decompose: the same signature failing 3 times draws an advisory; continued identical failures escalate to rejection",
			script: func() *script {
				s := newScript("r")
				repeat(4, func(i int) { s.call("", "build", `{"pkg":"./..."}`).result(fmt.Sprint("failure ", i+1), true, "error") })
				return s.call("5th", "build", `{"pkg":"./..."}`)
			},
			want: map[string]string{"failure 3": "advise:avoid_repeat", "failure 4": "advise:override advise:vary_approach", "5th": "reject:LOOP_DETECTED"},
		},
		{
			from: "decompose: a success neither counts nor resets",
			script: func() *script {
				s := newScript("r").call("", "build", `{"pkg":"a"}`).result("", true, "error").call("", "build", `{"pkg":"a"}`).result("", false, "ok")
				return s.call("", "build", `{"pkg":"a"}`).result("", true, "error").call("", "build", `{"pkg":"a"}`).result("3rd failure", true, "error")
			},
			want: map[string]string{"3rd failure": "advise:avoid_repeat"},
		},
		{
			from: "decompose: the same tool failing 4 times, whatever its arguments, draws a tool-level hint",
			script: func() *script {
				s := newScript("r")
				repeat(4, func(i int) {
					s.call("", "grep", fmt.Sprintf(`{"q":"%d"}`, i)).result(fmt.Sprint("failure ", i+1), true, "error")
				})
				return s
			},
			want: map[string]string{"failure 4": "advise:vary_approach"},
		},
		{
			from: "memo: the same call again in the task, canonically the same (key order and spacing do not matter)",
			script: func() *script {
				s := newScript("r").exec("", "read_file", `{"path":"a.go","lines":[1,2]}`, false, "x")
				return s.exec("again", "read_file", `{ "lines" : [1, 2], "path" : "a.go" }`, false, "x")
			},
			want: map[string]string{"again": "advise:avoid_repeat"},
		},
		{
			from: "fan-out: at the limit a nudge naming the better move; past it, continued rejection",
			script: func() *script {
				s := newScript("r")
				repeat(31, func(i int) {
					s.call(map[int]string{29: "30th", 30: "31st"}[i], "read_file", fmt.Sprintf(`{"path":"src/f%d.go"}`, i)).result("", false, "x")
				})
				return s.call("32nd", "read_file", `{"path":"src/g.go"}`)
			},
			want: map[string]string{"30th": "advise:narrow_scope allow", "31st": "reject:LIMIT_EXCEEDED", "32nd": "reject:LIMIT_EXCEEDED"},
		},
	})
}

// TestPresetsCiteTheirSources checks that every reference design a preset
// file cites is there in ../shared/reference and is the design the preset
// reproduces: the cited file holds the phrase that identifies it.
func TestPresetsCiteTheirSources(t *testing.T) {
	dir := referenceDir(t)
	identifies := map[string]string{
		"runtime-spec": "# Runtime Guardrails (Tool I/O, Loop Control, Schema Enforcement)",
		"aos":          "# P2.3: Tool Loop Safety, Limits, and Context Bounds",
		"zkit":         "guardrails.NewGuardedSource",
		"glue":         "erain merged commit cc3f98c",
	}
	cite := regexp.MustCompile(`\.\./shared/reference/[0-9a-f]+_[0-9a-f]+\.txt`)
	for _, name := range guard.Presets() {
		b, err := os.ReadFile(filepath.Join("presets", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cited := cite.FindAllString(string(b), -1)
		phrase, ok := identifies[name]
		switch {
		case !ok && len(cited) == 0:
			continue
		case !ok || len(cited) != 1:
			t.Errorf("preset %s cites %q; want one citation for a reference design, none for others", name, cited)
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, filepath.Base(cited[0])))
		if err != nil {
			t.Errorf("preset %s: %v", name, err)
		} else if !strings.Contains(string(text), phrase) {
			t.Errorf("preset %s cites %s, which is not its source: it lacks %q", name, cited[0], phrase)
		}
	}
}

// referenceDir returns ../shared/reference beside the module's root
// (GUARDSTREAM_SHARED names the shared folder elsewhere), or skips the
// test.
func referenceDir(t *testing.T) string {
	shared := os.Getenv("GUARDSTREAM_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "shared") // guard/ is one below the module's root
	}
	dir := filepath.Join(shared, "reference")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the reference designs are not here (%v): they live in ../shared/reference beside the module root; set GUARDSTREAM_SHARED to the shared folder to run this elsewhere", err)
	}
	return dir
}
