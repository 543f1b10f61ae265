package repair_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/processors/schema/repair"
)

// The cases of TestHarnessCases come from the tests and sources of other
// agent harnesses, at these commits. Each case names its file; the inputs
// and the outputs the harness expects are theirs, written as our tool
// arguments. Where we decide differently the case says so and why.
const (
	cline    = "cline/cline@21cb8d2525bcedf1f4b6890b27a74a14fe7451e4 "
	openclaw = "openclaw/openclaw "
	gemini   = "google-gemini/gemini-cli@5411f113cafae26161b4969b0237b8e1e024e2c2 "
	openhand = "All-Hands-AI/OpenHands@156d0686c46aafb0fa9d291da6421fb6f64dddc0 "
)

// Schemas of the ported cases.
const (
	anyObject = `{"type":"object"}`
	commands  = `{"type":"object","properties":{"commands":{"type":"array","items":{"type":"string"}}}}`
	nameOnly  = `{"type":"object","properties":{"name":{"type":"string"}}}`
	flagOnly  = `{"type":"object","properties":{"flag":{"type":["boolean","null"]}}}`
	pathOnly  = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	editor    = `{"type":"object","properties":{"command":{"enum":["view","create","str_replace","insert","undo_edit"]},"path":{"type":"string"},
		"insert_line":{"type":"integer"},"view_range":{"type":"array","items":{"type":"integer"}},"tags":{"type":"array","items":{"type":"string"}}},
		"required":["command","path"],"additionalProperties":false}`
	steps = `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"args":{"type":"array","items":{"type":"string"}}}}}}}`
	grep  = `{"type":"object","properties":{"pattern":{"type":"string"},"dir_path":{"type":"string"},"include":{"type":"string"}},"required":["pattern"]}`
	memo  = `{"type":"object","properties":{"fact":{"type":"string"},"filenames":{"type":"array","items":{"type":"string"}}},"required":["fact"]}`
)

type harnessCase struct {
	from    string // the harness, file and what it does there
	schema  string
	args    string
	opts    *repair.Options // nil: the defaults
	status  repair.Status
	want    string   // repaired args, for Repaired
	repairs []string // the repairs named in the diagnostics, for Repaired
}

func TestHarnessCases(t *testing.T) {
	withTruncated := &repair.Options{Repairs: repair.DefaultRepairs() | repair.SetOf(repair.TruncatedString)}
	lenient := &repair.Options{Repairs: repair.DefaultRepairs(), LenientNull: true}
	cases := []harnessCase{
		// cline: sdk/packages/shared/src/parse/json.test.ts, parseJsonStream (jsonrepair).
		{from: cline + "json.test.ts: repairs single-quoted JSON", schema: commands,
			args: `{'commands': ['ls']}`, status: repair.Repaired, want: `{"commands":["ls"]}`, repairs: []string{"quotes"}},
		{from: cline + "json.test.ts: repairs valid JSON with trailing commas", schema: nameOnly,
			args: `{"name": "test",}`, status: repair.Repaired, want: `{"name":"test"}`, repairs: []string{"trailing_comma"}},
		{from: cline + "json.test.ts: rejects truncated JSON with an unterminated string (our default too)", schema: anyObject,
			args: `{"path":"cfg.yml","content":"production:\n  host: db`, status: repair.Invalid},
		{from: cline + "json.test.ts: the same text with truncated_string on, as jsonrepair alone would do", schema: anyObject, opts: withTruncated,
			args: `{"path":"cfg.yml","content":"production:\n  host: db`, status: repair.Repaired,
			want: `{"content":"production:\n  host: db","path":"cfg.yml"}`, repairs: []string{"missing_closers", "truncated_string"}},
		{from: cline + "json.test.ts: repairs Python-style literals (True)", schema: flagOnly,
			args: `{"flag": True}`, status: repair.Repaired, want: `{"flag":true}`, repairs: []string{"python_literals"}},
		{from: cline + "json.test.ts: repairs Python-style literals (None)", schema: flagOnly,
			args: `{"flag": None}`, status: repair.Repaired, want: `{"flag":null}`, repairs: []string{"python_literals"}},
		{from: cline + "json.test.ts: repairs single-quoted JSON with double-quote characters inside values", schema: commands,
			args: `{'commands': ['grep " foo']}`, status: repair.Repaired, want: `{"commands":["grep \" foo"]}`, repairs: []string{"quotes"}},
		{from: cline + "json.test.ts: repairs unclosed containers with complete string values", schema: commands,
			args: `{"commands": ["ls"`, status: repair.Repaired, want: `{"commands":["ls"]}`, repairs: []string{"missing_closers"}},
		{from: cline + "json.test.ts: returns already-valid JSON unchanged", schema: commands,
			args: `{"commands": ["ls"]}`, status: repair.Valid},
		{from: cline + "json.test.ts: repairs a bare object value into a JSON string (left out: we do not guess where an unquoted shell command ends)", schema: anyObject,
			args: `{"commands": find /Users/beatrix/dev/sdk -name "user-instruction-config-loader.ts" -o -name "rules.ts" | head -20}`, status: repair.Invalid},
		{from: cline + "json.test.ts: repairs bare-object values with unbalanced double quotes (left out, as above)", schema: anyObject,
			args: `{"commands": grep -c " file.txt}`, status: repair.Invalid},
		// cline: normalizeJsonLikeStringsForSchema, same file.
		{from: cline + "json.test.ts: parses JSON strings when the schema expects arrays", schema: commands,
			args: `{"commands": "[\"git status\",\"bun test\"]"}`, status: repair.Repaired, want: `{"commands":["git status","bun test"]}`, repairs: []string{"parse_string"}},
		{from: cline + "json.test.ts: preserves JSON-looking strings when the schema expects strings",
			schema: `{"type":"object","properties":{"text":{"type":"string"}}}`,
			args:   `{"text": "{\"keep\":\"as text\"}"}`, status: repair.Valid},
		{from: cline + "json.test.ts: normalizes nested array items using item schemas", schema: steps,
			args:   `{"steps": [{"args": "[\"--version\"]"}, {"args": "[\"test\"]"}]}`,
			status: repair.Repaired, want: `{"steps":[{"args":["--version"]},{"args":["test"]}]}`, repairs: []string{"parse_string", "parse_string"}},

		// OpenClaw: src/llm/utils/json-parse.test.ts@1cbdeab3f3a97dea946171a3d6211cc057926e61 (repairJson).
		{from: openclaw + "json-parse.test.ts: repairs a \\u not followed by four hex digits", schema: pathOnly,
			args: `{"path":"C:\users"}`, status: repair.Repaired, want: `{"path":"C:\\users"}`, repairs: []string{"bad_escapes"}},
		{from: openclaw + "json-parse.test.ts: preserves valid \\uXXXX escapes", schema: anyObject,
			args: `{"e":"\u0041"}`, status: repair.Valid},
		{from: openclaw + "json-parse.test.ts: recovers streaming tool-call arguments (LaTeX \\underline)", schema: anyObject,
			args: `{"cmd":"\underline{x}"}`, status: repair.Repaired, want: `{"cmd":"\\underline{x}"}`, repairs: []string{"bad_escapes"}},
		{from: openclaw + "json-parse.test.ts: preserves legitimate JSON control escapes", schema: anyObject,
			args: `{"message":"line\nnext\ttabbed"}`, status: repair.Valid},
		{from: openclaw + "json-parse.test.ts: unescaped Windows path C:\\new\\file (differs: \\n and \\f are valid escapes, and valid input is never changed)", schema: pathOnly,
			args: `{"path":"C:\new\file"}`, status: repair.Valid},
		{from: openclaw + "json-parse.test.ts: unescaped Windows path D:\\reports\\q (differs: \\r stays a carriage return; only the invalid \\q is kept as typed)", schema: pathOnly,
			args: `{"path":"D:\reports\q"}`, status: repair.Repaired, want: `{"path":"D:\reports\\q"}`, repairs: []string{"bad_escapes"}},
		// OpenClaw: src/llm/utils/json-parse.ts@59009fe903b22d30559bbee5116ed26d5ef74f6d escapes raw control characters in strings.
		{from: openclaw + "json-parse.ts: escapes a raw newline and tab inside a string", schema: anyObject,
			args: "{\"cmd\":\"echo a\n\techo b\"}", status: repair.Repaired, want: `{"cmd":"echo a\n\techo b"}`, repairs: []string{"control_chars"}},
		// OpenClaw: src/agents/pi-embedded-runner/run/attempt.tool-call-argument-repair.ts@025c629ebf56d582c9ca630fb94daa84b2d9171b
		// normalizes smart double quotes used as JSON string delimiters.
		{from: openclaw + "attempt.tool-call-argument-repair.ts: smart quotes as delimiters", schema: pathOnly,
			args: "{\u201cpath\u201d: \u201c/tmp/a.txt\u201d}", status: repair.Repaired, want: `{"path":"/tmp/a.txt"}`, repairs: []string{"quotes"}},
		{from: openclaw + "attempt.tool-call-argument-repair.ts: smart quotes inside an ASCII-quoted string are content", schema: anyObject,
			args: "{\"text\": \"she said \u201chi\u201d\"}", status: repair.Valid},
		{from: openclaw + "attempt.tool-call-argument-repair.test.ts@ad0f58dd07a80c279979dd332b6139b0d37fca5c: a prefix before the JSON (left out: not among our repairs)", schema: pathOnly,
			args: `.functions.read:0 {"path":"/tmp/report.txt"}x`, status: repair.Invalid},

		// gemini-cli: packages/core/src/tools/memoryTool.ts takes a single file name where it wants a list.
		{from: gemini + "memoryTool.ts: Array.isArray(filename) ? filename : [filename]", schema: memo,
			args: `{"fact":"x","filenames":"GEMINI.md"}`, status: repair.Repaired, want: `{"fact":"x","filenames":["GEMINI.md"]}`, repairs: []string{"wrap_array"}},
		// gemini-cli: packages/core/src/tools/mcp-client.ts, invokeMcpPrompt, drops null and undefined parameters.
		{from: gemini + "mcp-client.ts: invokeMcpPrompt leaves out null parameters", schema: grep,
			args: `{"pattern":"TODO","include":null}`, status: repair.Repaired, want: `{"pattern":"TODO"}`, repairs: []string{"drop_null"}},
		// gemini-cli: packages/core/src/tools/ripGrep.ts reads dir_path || '.', so null means absent.
		{from: gemini + "ripGrep.ts: a null dir_path is the default (lenient null)", schema: grep, opts: lenient,
			args: `{"pattern":"TODO","dir_path":null}`, status: repair.Valid},
		// gemini-cli: packages/core/src/core/baseLlmClient.ts, cleanJsonResponse, strips a json code fence.
		{from: gemini + "baseLlmClient.ts: cleanJsonResponse strips ```json", schema: pathOnly,
			args: "```json\n{\"path\":\"a.ts\"}\n```", status: repair.Repaired, want: `{"path":"a.ts"}`, repairs: []string{"code_fence"}},

		// OpenHands: openhands/llm/fn_call_converter.py converts array and integer parameters;
		// tests/unit/llm/test_llm_fncall_converter.py has view_range "[1, 10]" and tags.
		{from: openhand + "test_llm_fncall_converter.py: view_range given as text", schema: editor,
			args:   `{"command": "view", "path": "/test/file.py", "view_range": "[1, 10]"}`,
			status: repair.Repaired, want: `{"command":"view","path":"/test/file.py","view_range":[1,10]}`, repairs: []string{"parse_string"}},
		{from: openhand + "test_llm_fncall_converter.py: a list parameter given as text", schema: editor,
			args:   `{"command": "view", "path": "/test/file.py", "tags": "[\"tag1\", \"tag2\", \"tag with spaces\"]"}`,
			status: repair.Repaired, want: `{"command":"view","path":"/test/file.py","tags":["tag1","tag2","tag with spaces"]}`, repairs: []string{"parse_string"}},
		{from: openhand + "fn_call_converter.py: an integer parameter given as text", schema: editor,
			args:   `{"command": "insert", "path": "/test/file.py", "insert_line": "5"}`,
			status: repair.Repaired, want: `{"command":"insert","insert_line":5,"path":"/test/file.py"}`, repairs: []string{"coerce_scalar"}},
		{from: openhand + "fn_call_converter.py: an array parameter that is not JSON is refused", schema: editor,
			args: `{"command": "view", "path": "/test/file.py", "view_range": "1 to 10"}`, status: repair.Invalid},
	}
	for _, tc := range cases {
		t.Run(tc.from, func(t *testing.T) {
			s := repair.Compile(tc.schema)
			if b := s.Broken(); b != "" {
				t.Fatalf("schema broken: %s", b)
			}
			r := s.Check(tc.args, tc.opts)
			t.Logf("%s -> %v %s %s", tc.args, r.Status, r.Args, render(r.Diags))
			if r.Status != tc.status || r.Args != tc.want {
				t.Fatalf("got status %d args %s, want %d %s", r.Status, r.Args, tc.status, tc.want)
			}
			if r.Status != repair.Repaired {
				return
			}
			var names []string
			for _, d := range r.Diags {
				names = append(names, d.Repair)
			}
			if !slices.Equal(names, tc.repairs) {
				t.Errorf("repairs %s, want %s", strings.Join(names, " "), strings.Join(tc.repairs, " "))
			}
			if again := s.Check(r.Args, tc.opts); again.Status != repair.Valid {
				t.Errorf("repairing the repaired args again: %+v", again)
			}
		})
	}
}
