package schema_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/processors/schema"
)

// Schemas of the tools and documents the tests declare.
const (
	readFile = `{"type":"object","properties":{"path":{"type":"string"},"depth":{"type":"integer","minimum":0},"recursive":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`
	// writeFile and editFile differ from readFile, so a run can override them.
	writeFile  = `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`
	editFile   = `{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}},"required":["path","old","new"]}`
	grepSearch = `{"type":"object","properties":{"query":{"type":"string"},"max_results":{"type":"integer"}},"required":["query"]}`
	planDoc    = `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"string"},"minItems":1},"done":{"type":"boolean"}},"required":["steps"],"additionalProperties":false}`
)

// Arguments of read_file calls.
const (
	valid      = `{"path":"a.go"}`
	repairable = `{"file_path":"a.go","depth":"2"}`
	invalid    = `{"path":"a.go","depth":"ten"}`
)

func tools() []event.Schema {
	return []event.Schema{
		{Name: "read_file", Schema: readFile},
		{Name: "write_file", Schema: writeFile},
		{Name: "edit_file", Schema: editFile},
		{Name: "grep_search", Schema: grepSearch},
	}
}

// start returns a history whose run start declares the given tools and
// documents, for agent class agent.
func start(run, agent string, tools, docs []event.Schema) *processortest.History {
	h := &processortest.History{Tenant: "acme", Run: run}
	return h.Add(event.Event{Kind: event.KindRunStart, Agent: agent, Tools: tools, Docs: docs})
}

// declared returns a history of a run that declares the test tools and the
// plan document.
func declared(run string) *processortest.History {
	return start(run, "test", tools(), []event.Schema{{Name: "plan", Schema: planDoc}})
}

func doc(h *processortest.History, name, text string) *processortest.History {
	return h.Add(event.Event{Kind: event.KindStep, Doc: text, DocSchema: name})
}

// summary renders decisions compactly: "allow", "repair",
// "reject:INVALID_ARGS", "advise:fix_args", "stop:SYSTEM_ERROR".
func summary(ds []event.Decision) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		parts = append(parts, processortest.Brief(&d))
	}
	return strings.Join(parts, " ")
}

// decide applies the history and returns each event's decision summary,
// keyed by sequence, leaving out events that drew none.
func decide(p schema.Policy, h *processortest.History) map[int64]string {
	got, _ := processortest.BySeq(processors.NewChain(schema.New(p)), h.Events(), summary)
	return got
}

func policy(mod func(*schema.Policy)) schema.Policy {
	p := schema.DefaultPolicy()
	if mod != nil {
		mod(&p)
	}
	return p
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestGuard(t *testing.T) {
	tests := []struct {
		name    string
		policy  func(*schema.Policy)
		history func() *processortest.History
		want    map[int64]string // by event sequence; events not listed draw nothing
	}{
		{
			name: "valid, repaired and invalid calls",
			history: func() *processortest.History {
				return declared("r").Call("read_file", valid).Call("read_file", repairable).Call("read_file", invalid)
			},
			want: map[int64]string{2: "allow", 3: "repair", 4: "reject:INVALID_ARGS"},
		},
		{
			name: "reject, reject with fix_args, then stop",
			history: func() *processortest.History {
				return declared("r").Call("read_file", invalid).Call("read_file", invalid).Call("read_file", invalid).Call("read_file", valid)
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 3: "advise:fix_args reject:INVALID_ARGS", 4: "stop:SYSTEM_ERROR", 5: "reject:SYSTEM_ERROR"},
		},
		{
			name: "unknown tools count as invalid calls",
			history: func() *processortest.History {
				return declared("r").Call("reed_file", valid).Call("read_file", invalid).Call("cat", `{}`)
			},
			want: map[int64]string{2: "reject:UNKNOWN_TOOL", 3: "advise:fix_args reject:INVALID_ARGS", 4: "stop:SYSTEM_ERROR"},
		},
		{
			name: "a valid call resets the count",
			history: func() *processortest.History {
				h := declared("r").Call("read_file", invalid).Call("read_file", invalid).Call("read_file", valid)
				return h.Call("read_file", invalid).Call("read_file", invalid).Call("read_file", invalid)
			},
			want: map[int64]string{
				2: "reject:INVALID_ARGS", 3: "advise:fix_args reject:INVALID_ARGS", 4: "allow",
				5: "reject:INVALID_ARGS", 6: "advise:fix_args reject:INVALID_ARGS", 7: "stop:SYSTEM_ERROR",
			},
		},
		{
			name: "a repaired call resets the count",
			history: func() *processortest.History {
				return declared("r").Call("read_file", invalid).Call("read_file", invalid).Call("read_file", repairable).Call("read_file", invalid)
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 3: "advise:fix_args reject:INVALID_ARGS", 4: "repair", 5: "reject:INVALID_ARGS"},
		},
		{
			name: "steps and results do not reset the count",
			history: func() *processortest.History {
				h := declared("r").Call("read_file", invalid).Step().Call("read_file", valid).Result(false, "ok")
				h.Call("read_file", invalid).Step()
				return h.Call("read_file", invalid).Call("read_file", invalid)
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 4: "allow", 6: "reject:INVALID_ARGS", 8: "advise:fix_args reject:INVALID_ARGS", 9: "stop:SYSTEM_ERROR"},
		},
		{
			name:   "max_attempts 1: advise with the first reject, stop at the second",
			policy: func(p *schema.Policy) { p.MaxAttempts = 1 },
			history: func() *processortest.History {
				return declared("r").Call("read_file", invalid).Call("read_file", invalid)
			},
			want: map[int64]string{2: "advise:fix_args reject:INVALID_ARGS", 3: "stop:SYSTEM_ERROR"},
		},
		{
			name:   "max_attempts 0 never stops",
			policy: func(p *schema.Policy) { p.MaxAttempts = 0 },
			history: func() *processortest.History {
				return declared("r").Call("read_file", invalid).Call("read_file", invalid).Call("read_file", invalid).Call("nope", `{}`)
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 3: "reject:INVALID_ARGS", 4: "reject:INVALID_ARGS", 5: "reject:UNKNOWN_TOOL"},
		},
		{
			name: "a run with nothing registered has the JSON of its calls checked",
			history: func() *processortest.History {
				return processortest.NewHistory("acme", "r").Call("read_file", invalid).Call("anything", `{not json`).Call("x", "").Call("y", `{'cmd': 'ls',}`)
			},
			want: map[int64]string{2: "allow", 3: "reject:INVALID_ARGS", 4: "allow", 5: "repair"},
		},
		{
			name:   "with schemaless pass, a run with nothing registered is not checked",
			policy: func(p *schema.Policy) { p.Schemaless = schema.SchemalessPass },
			history: func() *processortest.History {
				return processortest.NewHistory("acme", "r").Call("read_file", invalid).Call("anything", `{not json`).Call("x", "")
			},
			want: map[int64]string{2: "allow", 3: "allow", 4: "allow"},
		},
		{
			name:   "with unknown_tools allow, an unregistered tool is checked as one without a schema",
			policy: func(p *schema.Policy) { p.UnknownTools = schema.UnknownAllow },
			history: func() *processortest.History {
				return declared("r").Call("mcp_search", `{"q": "x"}`).Call("mcp_search", `{q: "x"}`).Call("mcp_search", `{"q": `).Call("read_file", invalid)
			},
			want: map[int64]string{2: "allow", 3: "repair", 4: "reject:INVALID_ARGS", 5: "advise:fix_args reject:INVALID_ARGS"},
		},
		{
			name:   "with unknown_tools allow and schemaless pass, an unregistered tool passes",
			policy: func(p *schema.Policy) { p.UnknownTools, p.Schemaless = schema.UnknownAllow, schema.SchemalessPass },
			history: func() *processortest.History {
				return declared("r").Call("mcp_search", `{"q": `).Call("read_file", `{"path": `)
			},
			want: map[int64]string{2: "allow", 3: "reject:INVALID_ARGS"},
		},
		{
			name:   "validate-only mode refuses what repair mode repairs",
			policy: func(p *schema.Policy) { p.Mode = schema.ModeValidate },
			history: func() *processortest.History {
				return declared("r").Call("read_file", repairable).Call("read_file", valid).Call("anything_else", `{"a": 1,}`)
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 3: "allow", 4: "reject:UNKNOWN_TOOL"},
		},
		{
			name:   "only the listed repairs are made",
			policy: func(p *schema.Policy) { p.Repairs = []string{"coerce_scalar"} },
			history: func() *processortest.History {
				return declared("r").Call("read_file", `{"path": "a", "depth": "2"}`).Call("read_file", repairable)
			},
			want: map[int64]string{2: "repair", 3: "reject:INVALID_ARGS"},
		},
		{
			name:   "lenient null lets a null optional argument through as sent",
			policy: func(p *schema.Policy) { p.LenientNull = true },
			history: func() *processortest.History {
				return declared("r").Call("read_file", `{"path": "a", "depth": null}`).Call("read_file", `{"path": null}`)
			},
			want: map[int64]string{2: "allow", 3: "reject:INVALID_ARGS"},
		},
		{
			name: "strict nulls: a null optional argument is dropped by a repair",
			history: func() *processortest.History {
				return declared("r").Call("read_file", `{"path": "a", "depth": null}`)
			},
			want: map[int64]string{2: "repair"},
		},
		{
			name: "a markdown auto-link in a path is removed",
			history: func() *processortest.History {
				return declared("r").Call("read_file", `{"path": "[a.py](http://a.py)"}`).Call("read_file", `{"path": "a.py"}`)
			},
			want: map[int64]string{2: "repair", 3: "allow"},
		},
		{
			name: "a markdown auto-link in a path is removed without a schema too",
			history: func() *processortest.History {
				return processortest.NewHistory("acme", "r").Call("cat", `{"file": "<http://README.md>"}`)
			},
			want: map[int64]string{2: "repair"},
		},
		{
			name:   "the policy's default registry applies to every class",
			policy: func(p *schema.Policy) { p.Default.Tools = map[string]json.RawMessage{"read_file": raw(readFile)} },
			history: func() *processortest.History {
				return start("r", "anyone", nil, nil).Call("read_file", valid).Call("read_file", invalid).Call("write_file", valid)
			},
			want: map[int64]string{2: "allow", 3: "reject:INVALID_ARGS", 4: "advise:fix_args reject:UNKNOWN_TOOL"},
		},
		{
			name: "an agent class extends and overrides the default",
			policy: func(p *schema.Policy) {
				p.Default.Tools = map[string]json.RawMessage{"read_file": raw(readFile), "write_file": raw(writeFile)}
				p.Agents = map[string]schema.Registry{"coder": {Tools: map[string]json.RawMessage{"write_file": raw(`{"type":"object"}`), "edit_file": raw(editFile)}}}
			},
			history: func() *processortest.History {
				h := start("r", "coder", nil, nil).Call("read_file", invalid).Call("write_file", valid).Call("edit_file", valid)
				return h
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 3: "allow", 4: "reject:INVALID_ARGS"},
		},
		{
			name: "the run's own tools extend and override the policy's",
			policy: func(p *schema.Policy) {
				p.Default.Tools = map[string]json.RawMessage{"read_file": raw(readFile), "write_file": raw(writeFile)}
			},
			history: func() *processortest.History {
				h := start("r", "test", []event.Schema{{Name: "read_file", Schema: `{"type":"object","required":["file"]}`}, {Name: "ls", Schema: `{}`}}, nil)
				return h.Call("read_file", valid).Call("read_file", `{"file":"a"}`).Call("ls", `{"anything":1}`).Call("write_file", `{"path":"a","content":""}`)
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 3: "allow", 4: "allow", 5: "allow"},
		},
		{
			name: "a tool declared without a schema takes any JSON",
			history: func() *processortest.History {
				return start("r", "test", []event.Schema{{Name: "free"}}, nil).Call("free", `{"x":[1]}`).Call("free", "").Call("free", `{bad`)
			},
			want: map[int64]string{2: "allow", 3: "allow", 4: "reject:INVALID_ARGS"},
		},
		{
			name: "a broken schema rejects its tool's calls and no other",
			history: func() *processortest.History {
				return start("r", "test", []event.Schema{{Name: "bad", Schema: `{"type":"strng"}`}, {Name: "read_file", Schema: readFile}}, nil).
					Call("bad", `{}`).Call("read_file", valid).Call("bad", `{}`).Call("bad", `{}`).Call("bad", `{}`)
			},
			want: map[int64]string{2: "reject:INVALID_ARGS", 3: "allow", 4: "reject:INVALID_ARGS", 5: "advise:fix_args reject:INVALID_ARGS", 6: "stop:SYSTEM_ERROR"},
		},
		{
			name: "a later declaration of a name replaces an earlier one",
			history: func() *processortest.History {
				return start("r", "test", []event.Schema{{Name: "t", Schema: `{"type":"string"}`}, {Name: "t", Schema: `{"type":"object"}`}}, nil).Call("t", `{}`)
			},
			want: map[int64]string{2: "allow"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := policy(tt.policy)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			h := tt.history()
			got := decide(p, h)
			for seq := int64(1); seq <= h.Seq(); seq++ {
				if got[seq] != tt.want[seq] {
					t.Errorf("event #%d (%s): got %q, want %q", seq, &h.Events()[seq-1], got[seq], tt.want[seq])
				}
			}
		})
	}
}

// apply runs the history in a chain of the guard with policy p and
// returns the decisions of its last event.
func apply(p schema.Policy, h *processortest.History) []event.Decision {
	c := processors.NewChain(schema.New(p))
	r := c.NewRun()
	var out processors.Out
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
	}
	return out.Decisions
}

func diags(ds []event.Diag) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.Path+"|"+d.Want+"|"+d.Got+"|"+d.Msg)
	}
	return strings.Join(parts, "\n")
}

func TestDecisionFields(t *testing.T) {
	p := schema.DefaultPolicy()
	t.Run("repair", func(t *testing.T) {
		ds := apply(p, declared("r").Call("read_file", repairable))
		if len(ds) != 1 {
			t.Fatalf("got %d decisions", len(ds))
		}
		d := ds[0]
		if d.Kind != event.Repair || d.Guard != "schema" || d.Call != "c1" || d.Args != `{"depth":2,"path":"a.go"}` {
			t.Errorf("got %+v", d)
		}
		want := "/depth|integer|string \"2\"|converted string \"2\" to integer 2\n/file_path|path|file_path|renamed file_path to path"
		if diags(d.Diags) != want {
			t.Errorf("diags:\n%s\nwant\n%s", diags(d.Diags), want)
		}
		if d.Msg != `repaired the arguments of read_file: converted string "2" to integer 2; renamed file_path to path` {
			t.Errorf("msg %q", d.Msg)
		}
	})
	t.Run("reject", func(t *testing.T) {
		ds := apply(p, declared("r").Call("read_file", `{"file_path":"a","depth":"ten","x":1}`))
		d := ds[len(ds)-1]
		want := "/depth|integer|string \"ten\"|expected integer at /depth, got string \"ten\"\n" +
			"/path|required property|missing|expected path, got file_path\n" +
			"/x|declared property|unknown property|unknown property x; declared: depth, path, recursive"
		if d.Kind != event.Reject || d.Reason != event.ReasonInvalidArgs || diags(d.Diags) != want {
			t.Errorf("got %s with diags\n%s\nwant\n%s", processortest.String(&d), diags(d.Diags), want)
		}
		if d.Msg != `invalid arguments for read_file: expected integer at /depth, got string "ten" (and 2 more)` {
			t.Errorf("msg %q", d.Msg)
		}
		if len(d.Counts) != 1 || d.Counts[0] != processors.Count("invalid", 1) {
			t.Errorf("counts %v", d.Counts)
		}
	})
	t.Run("advise and stop", func(t *testing.T) {
		ds := apply(p, declared("r").Call("read_file", invalid).Call("read_file", invalid))
		if len(ds) != 2 || ds[0].Kind != event.Advise || ds[1].Kind != event.Reject {
			t.Fatalf("got %s", summary(ds))
		}
		a := ds[0]
		if a.Steer.Kind != event.SteerFixArgs || a.Steer.Tool != "read_file" || len(a.Diags) != 1 || a.Diags[0].Path != "/depth" {
			t.Errorf("advice %+v", a)
		}
		ds = apply(p, declared("r").Call("read_file", invalid).Call("read_file", invalid).Call("read_file", `{"path":1}`))
		s := ds[len(ds)-1]
		if s.Kind != event.Stop || s.Reason != event.ReasonSystemError || s.Outcome != event.StatusFailed || s.Call != "c3" {
			t.Fatalf("got %s", processortest.String(&s))
		}
		if diags(s.Diags) != "/path|string|integer 1|expected string at /path, got integer 1" {
			t.Errorf("stop diags %s", diags(s.Diags))
		}
		if fmt.Sprint(s.Counts) != "[{invalid 3} {max_attempts 2}]" {
			t.Errorf("stop counts %v", s.Counts)
		}
		if s.Msg != "3 invalid calls in a row, after 2 repair attempts; the last: invalid arguments for read_file: expected string at /path, got integer 1" {
			t.Errorf("stop msg %q", s.Msg)
		}
	})
	t.Run("broken schema", func(t *testing.T) {
		ds := apply(p, start("r", "test", []event.Schema{{Name: "bad", Schema: `{"properties":{"a":{"$ref":"#/nowhere"}}}`}}, nil).Call("bad", `{}`))
		d := ds[0]
		if d.Reason != event.ReasonInvalidArgs || len(d.Diags) != 1 ||
			d.Diags[0].Msg != `the schema does not compile: at /properties/a/$ref: reference "#/nowhere" points at nothing` {
			t.Errorf("got %s, diags %s", processortest.String(&d), diags(d.Diags))
		}
		if d.Msg != `the schema of tool bad does not compile, so its calls cannot be checked: at /properties/a/$ref: reference "#/nowhere" points at nothing` {
			t.Errorf("msg %q", d.Msg)
		}
	})
}

func TestUnknownTool(t *testing.T) {
	tests := []struct {
		tool string
		near []string
		msg  string
	}{
		{"reed_file", []string{"read_file"}, "no tool named reed_file; did you mean read_file?"},
		{"ReadFile", []string{"read_file"}, "no tool named ReadFile; did you mean read_file?"},
		{"grep", []string{"grep_search"}, "no tool named grep; did you mean grep_search?"},
		{"search", []string{"grep_search"}, "no tool named search; did you mean grep_search?"},
		{"read", []string{"read_dir", "read_file"}, "no tool named read; did you mean read_dir or read_file?"},
		{"file", []string{"edit_file", "read_file", "write_file"}, "no tool named file; did you mean edit_file, read_file or write_file?"},
		{"edit_fil", []string{"edit_file"}, "no tool named edit_fil; did you mean edit_file?"},
		{"frobnicate", nil, "no tool named frobnicate; the registered tools are edit_file, grep_search, list_dir, read_dir, read_file, write_file"},
		{"ls", nil, "no tool named ls; the registered tools are edit_file, grep_search, list_dir, read_dir, read_file, write_file"},
	}
	declaredTools := append(tools(), event.Schema{Name: "read_dir", Schema: `{}`}, event.Schema{Name: "list_dir", Schema: `{}`})
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			ds := apply(schema.DefaultPolicy(), start("r", "test", declaredTools, nil).Call(tt.tool, `{}`))
			d := ds[len(ds)-1]
			if d.Kind != event.Reject || d.Reason != event.ReasonUnknownTool {
				t.Fatalf("got %s", processortest.String(&d))
			}
			if fmt.Sprint(d.Near) != fmt.Sprint(tt.near) || d.Msg != tt.msg {
				t.Errorf("near %v msg %q\nwant %v %q", d.Near, d.Msg, tt.near, tt.msg)
			}
		})
	}
}

func TestDocuments(t *testing.T) {
	tests := []struct {
		name    string
		history func() *processortest.History
		want    map[int64]string
	}{
		{
			name: "valid, repaired and invalid documents",
			history: func() *processortest.History {
				h := declared("r")
				doc(h, "plan", `{"steps":["read","edit"]}`)
				doc(h, "plan", "```json\n{\"Steps\":[\"read\"],\"done\":\"false\"}\n```")
				return doc(h, "plan", `{"steps":[]}`)
			},
			want: map[int64]string{3: "repair", 4: "reject:INVALID_OUTPUT"},
		},
		{
			name:    "an undeclared schema name",
			history: func() *processortest.History { return doc(declared("r"), "report", `{}`) },
			want:    map[int64]string{2: "reject:INVALID_OUTPUT"},
		},
		{
			name: "the third invalid document in a row stops the run",
			history: func() *processortest.History {
				h := declared("r")
				doc(h, "plan", `{}`)
				doc(h, "plan", `{"steps":[]}`)
				doc(h, "plan", `[]`)
				return h.Call("read_file", valid)
			},
			want: map[int64]string{2: "reject:INVALID_OUTPUT", 3: "reject:INVALID_OUTPUT", 4: "stop:SYSTEM_ERROR", 5: "reject:SYSTEM_ERROR"},
		},
		{
			name: "documents and calls are counted apart",
			history: func() *processortest.History {
				h := declared("r").Call("read_file", invalid)
				doc(h, "plan", `{}`)
				h.Call("read_file", invalid)
				doc(h, "plan", `{}`)
				doc(h, "plan", `{"steps":["a"]}`)
				return doc(h, "plan", `{}`)
			},
			want: map[int64]string{
				2: "reject:INVALID_ARGS", 3: "reject:INVALID_OUTPUT", 4: "advise:fix_args reject:INVALID_ARGS", 5: "reject:INVALID_OUTPUT", 7: "reject:INVALID_OUTPUT",
			},
		},
		{
			name: "a broken document schema",
			history: func() *processortest.History {
				return doc(start("r", "test", nil, []event.Schema{{Name: "plan", Schema: `{"type":"plan"}`}}), "plan", `{}`)
			},
			want: map[int64]string{2: "reject:INVALID_OUTPUT"},
		},
		{
			name: "a step without a schema name is not checked",
			history: func() *processortest.History {
				return declared("r").Add(event.Event{Kind: event.KindStep, Doc: `{not json`})
			},
			want: map[int64]string{},
		},
		{
			name: "a run without document schemas is not checked",
			history: func() *processortest.History {
				return doc(doc(start("r", "test", tools(), nil), "plan", `{}`), "x", `[`)
			},
			want: map[int64]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.history()
			got := decide(schema.DefaultPolicy(), h)
			for seq := int64(1); seq <= h.Seq(); seq++ {
				if got[seq] != tt.want[seq] {
					t.Errorf("event #%d (%s): got %q, want %q", seq, &h.Events()[seq-1], got[seq], tt.want[seq])
				}
			}
		})
	}

	t.Run("fields", func(t *testing.T) {
		h := declared("r")
		d := apply(schema.DefaultPolicy(), doc(h, "plan", "```json\n{\"Steps\":[\"read\"],\"done\":\"false\"}\n```"))[0]
		if d.Kind != event.Repair || d.Call != "" || d.Args != `{"done":false,"steps":["read"]}` || len(d.Diags) != 3 {
			t.Errorf("repair %s args %s diags\n%s", processortest.String(&d), d.Args, diags(d.Diags))
		}
		d = apply(schema.DefaultPolicy(), doc(declared("r"), "report", `{}`))[0]
		if d.Msg != "no document schema named report; declared: plan" || diags(d.Diags) != "|a declared document schema|schema report|"+d.Msg {
			t.Errorf("unknown schema: %s diags %s", processortest.String(&d), diags(d.Diags))
		}
		d = apply(schema.DefaultPolicy(), doc(start("r", "test", nil, []event.Schema{{Name: "plan", Schema: `{"type":"plan"}`}}), "plan", `{}`))[0]
		if !strings.HasPrefix(d.Msg, "the document schema plan does not compile, so its documents cannot be checked: expected one of") {
			t.Errorf("broken schema: %s", processortest.String(&d))
		}
		d = apply(schema.DefaultPolicy(), doc(declared("r"), "plan", `{"steps":[]}`))[0]
		if d.Msg != "invalid plan document: expected at least 1 item at /steps, got 0 items" || d.Diags[0].Path != "/steps" {
			t.Errorf("invalid document: %s", processortest.String(&d))
		}
	})
}

func TestPolicyValidate(t *testing.T) {
	if err := schema.DefaultPolicy().Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	good := policy(func(p *schema.Policy) {
		p.MaxAttempts, p.Mode, p.Repairs, p.LenientNull = 3, schema.ModeValidate, []string{"truncated_string", "missing_closers"}, true
		p.Schemaless, p.UnknownTools = schema.SchemalessPass, schema.UnknownAllow
		p.Default = schema.Registry{Tools: map[string]json.RawMessage{"read_file": raw(readFile)}}
		p.Agents = map[string]schema.Registry{"coder": {Docs: map[string]json.RawMessage{"plan": raw(planDoc)}}}
	})
	if err := good.Validate(); err != nil {
		t.Fatalf("good policy: %v", err)
	}
	bad := map[string]func(*schema.Policy){
		"negative attempts":   func(p *schema.Policy) { p.MaxAttempts = -1 },
		"broken default tool": func(p *schema.Policy) { p.Default.Tools = map[string]json.RawMessage{"t": raw(`{"type":"strng"}`)} },
		"broken class doc": func(p *schema.Policy) {
			p.Agents = map[string]schema.Registry{"c": {Docs: map[string]json.RawMessage{"d": raw(`{"$ref":"#/x"}`)}}}
		},
		"empty tool name":    func(p *schema.Policy) { p.Default.Tools = map[string]json.RawMessage{"": raw(`{}`)} },
		"empty agent class":  func(p *schema.Policy) { p.Agents = map[string]schema.Registry{"": {}} },
		"schema is not JSON": func(p *schema.Policy) { p.Default.Docs = map[string]json.RawMessage{"d": raw(`{`)} },
		"overlong schema name": func(p *schema.Policy) {
			p.Default.Tools = map[string]json.RawMessage{strings.Repeat("x", 300): raw(`{}`)}
		},
	}
	for name, mod := range bad {
		if err := policy(mod).Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
	// Each mode's mistake names its field and what to write instead.
	for _, tc := range []struct {
		mod  func(*schema.Policy)
		want string
	}{
		{func(p *schema.Policy) { p.Mode = "fix" }, `schema.mode is "fix"; want "repair" (repair what the repairs can) or "validate" (validate only)`},
		{func(p *schema.Policy) { p.Repairs = []string{"quotes", "fix_all"} }, `schema.repairs[1] is "fix_all", which is no repair; want one of code_fence, trailing_comma,`},
		{func(p *schema.Policy) { p.Repairs = []string{"quotes", "quotes"} }, `schema.repairs[1]: quotes is listed twice`},
		{func(p *schema.Policy) { p.Repairs = []string{"truncated_string"} }, `schema.repairs lists truncated_string but not missing_closers`},
		{func(p *schema.Policy) { p.Schemaless = "yes" }, `schema.schemaless is "yes"; want "json"`},
		{func(p *schema.Policy) { p.UnknownTools = "" }, `schema.unknown_tools is ""; want "reject"`},
	} {
		if err := policy(tc.mod).Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want it to start %q", err, tc.want)
		}
	}
	err := policy(func(p *schema.Policy) {
		p.Default.Tools = map[string]json.RawMessage{"t": raw(`{"type":"strng"}`)}
	}).Validate()
	if want := `schema.default.tools["t"]: the schema does not compile: expected one of`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want it to start %q", err, want)
	}
}

// TestPolicyJSON checks the policy's JSON form, schemas inline.
func TestPolicyJSON(t *testing.T) {
	text := `{"max_attempts":1,"mode":"repair","repairs":["rename_key"],"lenient_null":true,"schemaless":"json","unknown_tools":"reject",
		"default":{"tools":{"read_file":` + readFile + `}},"agents":{"coder":{"docs":{"plan":` + planDoc + `}}}}`
	p := schema.DefaultPolicy()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	h := start("r", "coder", nil, nil).Call("read_file", invalid)
	doc(h, "plan", `{"steps":["x"]}`)
	got := decide(p, h)
	if got[2] != "advise:fix_args reject:INVALID_ARGS" || got[3] != "" {
		t.Errorf("got %v", got)
	}
}
