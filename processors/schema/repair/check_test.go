package repair_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors/schema/repair"
)

// files is the schema most cases use: a read_file-like tool.
const files = `{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "depth": {"type": "integer", "minimum": 0},
    "ratio": {"type": "number"},
    "recursive": {"type": "boolean"},
    "mode": {"enum": ["a", "b"]},
    "opts": {
      "type": "object",
      "properties": {"depth": {"type": "integer"}, "maxCount": {"type": "integer"}},
      "additionalProperties": false
    },
    "paths": {"type": "array", "items": {"type": "string"}},
    "counts": {"type": "array", "items": {"type": "integer"}},
    "n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
  },
  "required": ["path"],
  "additionalProperties": false
}`

// required returns an object schema whose properties are all strings,
// requiring the listed ones; extra lists optional ones. Unknown keys are
// allowed unless closed is set.
func required(closed bool, req []string, extra ...string) string {
	props := make([]string, 0, len(req)+len(extra))
	for _, p := range append(slices.Clone(req), extra...) {
		props = append(props, fmt.Sprintf("%q:{}", p))
	}
	quoted := make([]string, len(req))
	for i, r := range req {
		quoted[i] = fmt.Sprintf("%q", r)
	}
	s := fmt.Sprintf(`{"type":"object","properties":{%s},"required":[%s]`, strings.Join(props, ","), strings.Join(quoted, ","))
	if closed {
		s += `,"additionalProperties":false`
	}
	return s + "}"
}

// diag renders a diagnostic as "path|want|got|msg", and "|repair" after
// it when it names a repair.
func diag(d event.Diag) string {
	s := d.Path + "|" + d.Want + "|" + d.Got + "|" + d.Msg
	if d.Repair != "" {
		s += "|" + d.Repair
	}
	return s
}

type checkCase struct {
	name   string
	schema string // files if empty
	args   string
	status repair.Status
	want   string   // repaired args, for Repaired
	diags  []string // "path|want|got|msg[|repair]", or a prefix of it ending in "*"
	opts   *repair.Options
}

func runCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.schema
			if text == "" {
				text = files
			}
			s := repair.Compile(text)
			if b := s.Broken(); b != "" {
				t.Fatalf("schema broken: %s", b)
			}
			r := s.Check(tc.args, tc.opts)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d; args %q diags %v", r.Status, tc.status, r.Args, r.Diags)
			}
			if r.Args != tc.want {
				t.Errorf("args:\n got %s\nwant %s", r.Args, tc.want)
			}
			if len(r.Diags) != len(tc.diags) {
				t.Fatalf("%d diags, want %d:\n%s", len(r.Diags), len(tc.diags), render(r.Diags))
			}
			for i, d := range r.Diags {
				got, want := diag(d), tc.diags[i]
				if p, ok := strings.CutSuffix(want, "*"); ok && strings.HasPrefix(got, p) {
					continue
				}
				if got != want {
					t.Errorf("diag %d:\n got %s\nwant %s", i, got, want)
				}
			}
			if r.Status == repair.Repaired {
				again := s.Check(r.Args, tc.opts)
				if again.Status != repair.Valid {
					t.Errorf("the repaired args do not validate: %v", again)
				}
			}
		})
	}
}

func render(ds []event.Diag) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s\n", diag(d))
	}
	return b.String()
}

func TestRenames(t *testing.T) {
	runCases(t, []checkCase{
		{
			name: "snake_case key to camelCase property", schema: required(false, []string{"maxCount"}),
			args: `{"max_count": 3}`, status: repair.Repaired, want: `{"maxCount":3}`,
			diags: []string{"/max_count|maxCount|max_count|renamed max_count to maxCount|rename_key"},
		},
		{
			name: "camelCase key to snake_case property", schema: required(false, []string{"max_count"}),
			args: `{"maxCount": 3}`, status: repair.Repaired, want: `{"max_count":3}`,
			diags: []string{"/maxCount|max_count|maxCount|renamed maxCount to max_count|rename_key"},
		},
		{
			name: "PascalCase key to camelCase property", schema: required(false, []string{"maxCount"}),
			args: `{"MaxCount": 3}`, status: repair.Repaired, want: `{"maxCount":3}`,
			diags: []string{"/MaxCount|maxCount|MaxCount|renamed MaxCount to maxCount|rename_key"},
		},
		{
			name: "kebab-case key to snake_case property", schema: required(false, []string{"max_count"}),
			args: `{"max-count": 3}`, status: repair.Repaired, want: `{"max_count":3}`,
			diags: []string{"/max-count|max_count|max-count|renamed max-count to max_count|rename_key"},
		},
		{
			name: "acronyms split into words", schema: required(false, []string{"base_url"}),
			args: `{"baseURL": "x"}`, status: repair.Repaired, want: `{"base_url":"x"}`,
			diags: []string{"/baseURL|base_url|baseURL|renamed baseURL to base_url|rename_key"},
		},
		{
			name: "property is a whole-word suffix of a snake_case key", schema: required(false, []string{"path"}),
			args: `{"file_path": "a.go"}`, status: repair.Repaired, want: `{"path":"a.go"}`,
			diags: []string{"/file_path|path|file_path|renamed file_path to path|rename_key"},
		},
		{
			name: "property is a whole-word suffix of a camelCase key", schema: required(false, []string{"path"}),
			args: `{"filePath": "a.go"}`, status: repair.Repaired, want: `{"path":"a.go"}`,
			diags: []string{"/filePath|path|filePath|renamed filePath to path|rename_key"},
		},
		{
			name: "property is a whole-word prefix of the key", schema: required(false, []string{"path"}),
			args: `{"path_str": "a.go"}`, status: repair.Repaired, want: `{"path":"a.go"}`,
			diags: []string{"/path_str|path|path_str|renamed path_str to path|rename_key"},
		},
		{
			name: "edit distance 1", schema: required(false, []string{"path"}),
			args: `{"pth": "a.go"}`, status: repair.Repaired, want: `{"path":"a.go"}`,
			diags: []string{"/pth|path|pth|renamed pth to path|rename_key"},
		},
		{
			name: "a swap of adjacent letters counts 1", schema: required(false, []string{"query"}),
			args: `{"qeury": "x"}`, status: repair.Repaired, want: `{"query":"x"}`,
			diags: []string{"/qeury|query|qeury|renamed qeury to query|rename_key"},
		},
		{
			name: "edit distance 2 to an optional property forbidden keys must match", schema: required(true, []string{"path"}, "recursive"),
			args: `{"path": "a", "recrsve": true}`, status: repair.Repaired, want: `{"path":"a","recursive":true}`,
			diags: []string{"/recrsve|recursive|recrsve|renamed recrsve to recursive|rename_key"},
		},
		{
			name: "nested object",
			args: `{"path": "a", "opts": {"max_count": 3}}`, status: repair.Repaired, want: `{"opts":{"maxCount":3},"path":"a"}`,
			diags: []string{"/opts/max_count|maxCount|max_count|renamed max_count to maxCount|rename_key"},
		},
		{
			name: "inside an array", schema: `{"type":"array","items":` + required(false, []string{"path"}) + `}`,
			args: `[{"path":"a"},{"file_path":"b"}]`, status: repair.Repaired, want: `[{"path":"a"},{"path":"b"}]`,
			diags: []string{"/1/file_path|path|file_path|renamed file_path to path|rename_key"},
		},
		{
			name: "same words win over a close name", schema: required(false, []string{"file_path"}, "path"),
			args: `{"filePath": "a"}`, status: repair.Repaired, want: `{"file_path":"a"}`,
			diags: []string{"/filePath|file_path|filePath|renamed filePath to file_path|rename_key"},
		},
		{
			name: "a rename exposes a quoted number, fixed in the next round",
			args: `{"file_path": "a", "opts": {"Depth": "3"}}`, status: repair.Repaired, want: `{"opts":{"depth":3},"path":"a"}`,
			diags: []string{
				"/file_path|path|file_path|renamed file_path to path|rename_key",
				"/opts/Depth|depth|Depth|renamed Depth to depth|rename_key",
				`/opts/depth|integer|string "3"|converted string "3" to integer 3|coerce_scalar`,
			},
		},
		{
			name: "a close unknown key is left alone when nothing fails", schema: required(false, []string{"path"}, "recursive"),
			args: `{"path": "a", "recursve": true}`, status: repair.Valid,
		},
		// Ambiguous or doubtful matches that must not be repaired.
		{
			name: "key close to two missing properties", schema: required(true, []string{"path", "file"}),
			args: `{"file_path": "a"}`, status: repair.Invalid,
			diags: []string{
				"/file|required property|missing|missing required property file",
				"/file_path|declared property|unknown property|unknown property file_path; declared: file, path",
				"/path|required property|missing|missing required property path",
			},
		},
		{
			name: "two keys close to one property", schema: required(false, []string{"path"}),
			args: `{"file_path": "a", "filePath": "b"}`, status: repair.Invalid,
			diags: []string{"/path|required property|missing|missing required property path"},
		},
		{
			name: "same words spelt two ways", schema: required(false, []string{"max_count"}),
			args: `{"maxCount": 1, "MaxCount": 2}`, status: repair.Invalid,
			diags: []string{"/max_count|required property|missing|missing required property max_count"},
		},
		{
			name: "two-letter names are never guessed", schema: required(false, []string{"id"}),
			args: `{"ip": "x"}`, status: repair.Invalid,
			diags: []string{"/id|required property|missing|missing required property id"},
		},
		{
			name: "edit distance 3", schema: required(false, []string{"recursive"}),
			args: `{"rcrsve": true}`, status: repair.Invalid,
			diags: []string{"/recursive|required property|missing|missing required property recursive"},
		},
		{
			name: "a declared key is not renamed", schema: required(false, []string{"path"}, "paths"),
			args: `{"paths": "a"}`, status: repair.Invalid,
			diags: []string{"/path|required property|missing|missing required property path"},
		},
		{
			name: "a rename is all or nothing", schema: files,
			args: `{"file_path": "a", "depth": "ten"}`, status: repair.Invalid,
			diags: []string{
				`/depth|integer|string "ten"|expected integer at /depth, got string "ten"`,
				"/path|required property|missing|expected path, got file_path",
			},
		},
	})
}

func TestCoercions(t *testing.T) {
	runCases(t, []checkCase{
		{
			name: "string to integer",
			args: `{"path":"a","depth":"10"}`, status: repair.Repaired, want: `{"depth":10,"path":"a"}`,
			diags: []string{`/depth|integer|string "10"|converted string "10" to integer 10|coerce_scalar`},
		},
		{
			name: "white space around the number is trimmed",
			args: `{"path":"a","depth":" 10 "}`, status: repair.Repaired, want: `{"depth":10,"path":"a"}`,
			diags: []string{`/depth|integer|string " 10 "|converted string " 10 " to integer 10|coerce_scalar`},
		},
		{
			name: "an integral number literal is an integer",
			args: `{"path":"a","depth":"1e3"}`, status: repair.Repaired, want: `{"depth":1e3,"path":"a"}`,
			diags: []string{`/depth|integer|string "1e3"|converted string "1e3" to integer 1e3|coerce_scalar`},
		},
		{
			name: "digits are kept exactly", schema: `{"type":"integer"}`,
			args: `"123456789012345678901234567890"`, status: repair.Repaired, want: `123456789012345678901234567890`,
			diags: []string{`|integer|string "123456789012345678901234567890"|converted string "123456789012345678901234567890" to integer 123456789012345678901234567890|coerce_scalar`},
		},
		{
			name: "string to number",
			args: `{"path":"a","ratio":"-0.5e-3"}`, status: repair.Repaired, want: `{"path":"a","ratio":-0.5e-3}`,
			diags: []string{`/ratio|number|string "-0.5e-3"|converted string "-0.5e-3" to number -0.5e-3|coerce_scalar`},
		},
		{
			name: "string to boolean true",
			args: `{"path":"a","recursive":"true"}`, status: repair.Repaired, want: `{"path":"a","recursive":true}`,
			diags: []string{`/recursive|boolean|string "true"|converted string "true" to boolean true|coerce_scalar`},
		},
		{
			name: "string to boolean false",
			args: `{"path":"a","recursive":"false"}`, status: repair.Repaired, want: `{"path":"a","recursive":false}`,
			diags: []string{`/recursive|boolean|string "false"|converted string "false" to boolean false|coerce_scalar`},
		},
		{
			name: "nullable integer",
			args: `{"path":"a","n":"5"}`, status: repair.Repaired, want: `{"n":5,"path":"a"}`,
			diags: []string{`/n|integer|string "5"|converted string "5" to integer 5|coerce_scalar`},
		},
		{
			name: "array items",
			args: `{"path":"a","counts":["1",2,"3"]}`, status: repair.Repaired, want: `{"counts":[1,2,3],"path":"a"}`,
			diags: []string{
				`/counts/0|integer|string "1"|converted string "1" to integer 1|coerce_scalar`,
				`/counts/2|integer|string "3"|converted string "3" to integer 3|coerce_scalar`,
			},
		},
		{
			name: "not a number",
			args: `{"path":"a","depth":"ten"}`, status: repair.Invalid,
			diags: []string{`/depth|integer|string "ten"|expected integer at /depth, got string "ten"`},
		},
		{
			name: "a fraction is not an integer",
			args: `{"path":"a","depth":"1.5"}`, status: repair.Invalid,
			diags: []string{`/depth|integer|string "1.5"|expected integer at /depth, got string "1.5"`},
		},
		{
			name: "booleans are spelt in lower case",
			args: `{"path":"a","recursive":"True"}`, status: repair.Invalid,
			diags: []string{`/recursive|boolean|string "True"|expected boolean at /recursive, got string "True"`},
		},
		{
			name: "a number is not turned into a string",
			args: `{"path":5}`, status: repair.Invalid,
			diags: []string{`/path|string|integer 5|expected string at /path, got integer 5`},
		},
		{
			name: "a coercion that breaks another rule is not kept",
			args: `{"path":"a","depth":"-1"}`, status: repair.Invalid,
			diags: []string{`/depth|integer|string "-1"|expected integer at /depth, got string "-1"`},
		},
		{
			name:   "no coercion where the schema does not say",
			schema: `{"type":"object"}`,
			args:   `{"depth":"10"}`, status: repair.Valid,
		},
	})
}

func TestTextRepairs(t *testing.T) {
	fence := "removed the markdown code fence around the JSON"
	runCases(t, []checkCase{
		{
			name: "code fence with a language", args: "```json\n{\"path\": \"a\"}\n```", status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{"|JSON|markdown code fence|" + fence + "|code_fence"},
		},
		{
			name: "code fence without a language", args: "  ```\n{\"path\": \"a\"}\n```\n", status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{"|JSON|markdown code fence|" + fence + "|code_fence"},
		},
		{
			name: "code fence on one line", args: "```{\"path\": \"a\"}```", status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{"|JSON|markdown code fence|" + fence + "|code_fence"},
		},
		{
			name: "trailing comma in an object", args: `{"path": "a",}`, status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{"|JSON|trailing comma|removed a trailing comma|trailing_comma"},
		},
		{
			name: "trailing commas in an array and an object", args: "{\"path\": \"a\", \"paths\": [\"x\", ],\n}", status: repair.Repaired, want: `{"path":"a","paths":["x"]}`,
			diags: []string{"|JSON|trailing comma|removed 2 trailing commas|trailing_comma"},
		},
		{
			name: "fence, trailing comma and a rename", args: "```json\n{\"file_path\": \"a\",}\n```", status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{
				"|JSON|markdown code fence|" + fence + "|code_fence",
				"|JSON|trailing comma|removed a trailing comma|trailing_comma",
				"/file_path|path|file_path|renamed file_path to path|rename_key",
			},
		},
		{
			name: "commas inside strings are data", args: `{"path": "a,}"}`, status: repair.Valid,
		},
		{
			name: "valid JSON is not re-encoded", args: "{ \"path\" : \"a\" }", status: repair.Valid,
		},
		{
			name: "not JSON", args: `{not json`, status: repair.Invalid,
			diags: []string{"|JSON|invalid JSON|not valid JSON: invalid character 'n' looking for beginning of object key string at offset 2"},
		},
		{
			name: "single quotes are not repaired when quotes is off", args: `{'path': 'a'}`, status: repair.Invalid,
			opts:  &repair.Options{Repairs: repair.DefaultRepairs() &^ repair.SetOf(repair.Quotes)},
			diags: []string{"|JSON|invalid JSON|not valid JSON: invalid character '\\'' looking for beginning of object key string at offset 2"},
		},
		{
			name: "text after the value", args: `{"path": "a"} and more`, status: repair.Invalid,
			diags: []string{"|JSON|invalid JSON|not valid JSON: unexpected text after the value at offset 15"},
		},
		{
			name: "a missing closer is not repaired in validate-only mode", args: `{"path": "a"`, status: repair.Invalid,
			opts:  &repair.Options{},
			diags: []string{"|JSON|invalid JSON|not valid JSON: unexpected end of input"},
		},
		{
			name: "empty arguments are an empty object", args: " ", status: repair.Invalid,
			diags: []string{"/path|required property|missing|missing required property path"},
		},
		{
			name: "empty arguments are fine when nothing is required", schema: `{"type":"object"}`, args: "", status: repair.Valid,
		},
	})
}

func TestDiagnostics(t *testing.T) {
	runCases(t, []checkCase{
		{
			name: "nested object member",
			args: `{"path":"a","opts":{"depth":true}}`, status: repair.Invalid,
			diags: []string{"/opts/depth|integer|boolean true|expected integer at /opts/depth, got boolean true"},
		},
		{
			name: "array item",
			args: `{"path":"a","paths":["x","y",3]}`, status: repair.Invalid,
			diags: []string{"/paths/2|string|integer 3|expected string at /paths/2, got integer 3"},
		},
		{
			name: "missing nested property", schema: `{"type":"object","properties":{"opts":` + required(false, []string{"depth"}) + `}}`,
			args: `{"opts":{}}`, status: repair.Invalid,
			diags: []string{"/opts/depth|required property|missing|missing required property depth in /opts"},
		},
		{
			name: "unknown nested property",
			args: `{"path":"a","opts":{"colour":1}}`, status: repair.Invalid,
			diags: []string{"/opts/colour|declared property|unknown property|unknown property colour in /opts; declared: depth, maxCount"},
		},
		{
			name: "enum",
			args: `{"path":"a","mode":"c"}`, status: repair.Invalid,
			diags: []string{`/mode|one of ["a" "b"]|string "c"|expected one of ["a" "b"] at /mode, got string "c"`},
		},
		{
			name: "minimum",
			args: `{"path":"a","depth":-1}`, status: repair.Invalid,
			diags: []string{`/depth|>= 0|integer -1|expected >= 0 at /depth, got integer -1`},
		},
		{
			name: "anyOf of types reads as one type failure",
			args: `{"path":"a","n":true}`, status: repair.Invalid,
			diags: []string{`/n|integer or null|boolean true|expected integer or null at /n, got boolean true`},
		},
		{
			name:   "anyOf of shapes counts the alternatives",
			schema: `{"anyOf":[` + required(false, []string{"a"}) + `,` + required(false, []string{"b"}) + `]}`,
			args:   `{"c":1}`, status: repair.Invalid,
			diags: []string{`|a match for one of 2 alternatives (anyOf)|object|the value at the top level matches none of the 2 alternatives of anyOf`},
		},
		{
			name: "the whole value",
			args: `[1]`, status: repair.Invalid,
			diags: []string{"|object|array of 1|expected object at the top level, got array of 1"},
		},
		{
			name: "JSON Pointer escapes", schema: `{"type":"object","properties":{"a/b":{"type":"string"},"c~d":{"type":"string"}}}`,
			args: `{"a/b":1,"c~d":2}`, status: repair.Invalid,
			diags: []string{
				"/a~1b|string|integer 1|expected string at /a~1b, got integer 1",
				"/c~0d|string|integer 2|expected string at /c~0d, got integer 2",
			},
		},
		{
			name: "long strings are cut",
			args: `{"path":"a","depth":"` + strings.Repeat("x", 50) + `"}`, status: repair.Invalid,
			diags: []string{`/depth|integer|string "` + strings.Repeat("x", 40) + `"…|*`},
		},
		{
			name: "at most five, in path order, indices numerically",
			args: `{"path":1,"depth":"x","paths":[1,"a",2,"b",3,"c",4,"d",5,"e",6]}`, status: repair.Invalid,
			diags: []string{
				`/depth|integer|string "x"|*`,
				`/path|string|integer 1|*`,
				`/paths/0|string|integer 1|*`,
				`/paths/2|string|integer 2|*`,
				`/paths/4|string|integer 3|*`,
			},
		},
	})
}

func TestCount(t *testing.T) {
	r := repair.Compile(files).Check(`{"path":1,"depth":"x","paths":[1,"a",2,"b",3,"c",4,"d",5,"e",10]}`, nil)
	if r.Count != 8 || len(r.Diags) != repair.MaxDiags {
		t.Errorf("count %d and %d diags, want 8 and %d", r.Count, len(r.Diags), repair.MaxDiags)
	}
}

// TestDeterministic checks that the validator's map-ordered errors come out
// the same every time.
func TestDeterministic(t *testing.T) {
	s := repair.Compile(files)
	args := `{"file_path":"a","b":1,"c":2,"d":3,"opts":{"x":1,"y":2,"max_count":"3"},"paths":[1,2],"mode":"z"}`
	first := s.Check(args, nil)
	for range 50 {
		if again := s.Check(args, nil); render(again.Diags) != render(first.Diags) || again.Count != first.Count {
			t.Fatalf("diagnostics differ between checks:\n%s---\n%s", render(first.Diags), render(again.Diags))
		}
	}
	repairable := `{"file_path":"a","opts":{"max_count":"3","Depth":"2"},"counts":["1","2"],"n":"4"}`
	first = s.Check(repairable, nil)
	if first.Status != repair.Repaired {
		t.Fatalf("not repaired: %s", render(first.Diags))
	}
	for range 50 {
		if again := s.Check(repairable, nil); again.Args != first.Args || render(again.Diags) != render(first.Diags) {
			t.Fatalf("repairs differ between checks")
		}
	}
}

func TestBrokenSchemas(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":`, "not valid JSON: unexpected end of input"},
		{`{"type":"strng"}`, `expected one of ["array" "boolean" "integer" "null" "number" "object" "string"] at /type, got string "strng"`},
		{`{"properties":{"a":{"type":5}}}`, `expected one of ["array" "boolean" "integer" "null" "number" "object" "string"] at /properties/a/type, got integer 5`},
		{`{"required":"path"}`, `expected array at /required, got string "path"`},
		{`{"pattern":"(("}`, `expected format regex at /pattern, got string "(("`},
		{`{"$ref":"#/$defs/nope"}`, `at /$ref: reference "#/$defs/nope" points at nothing`},
		{`{"$ref":"https://example.com/s.json"}`, `at /$ref: reference "https://example.com/s.json" points outside the schema; schemas must be self-contained`},
		{`{"properties":{"b":{"$ref":"#/$defs/y"},"a":{"$ref":"#/$defs/x"}}}`, `at /properties/a/$ref: reference "#/$defs/x" points at nothing`},
		{`{"$schema":"https://example.com/meta"}`, `failing loading "https://example.com/meta": external schema "https://example.com/meta" is not loaded; schemas must be self-contained`},
	}
	for _, tt := range tests {
		for range 20 { // the compiler walks maps: the message must not vary
			s := repair.Compile(tt.schema)
			if s.Broken() != tt.want {
				t.Fatalf("%s: Broken() = %q, want %q", tt.schema, s.Broken(), tt.want)
			}
		}
		r := repair.Compile(tt.schema).Check(`{}`, nil)
		if r.Status != repair.Invalid || len(r.Diags) != 1 || r.Diags[0].Msg != "the schema does not compile: "+tt.want {
			t.Errorf("%s: checking against it: %+v", tt.schema, r)
		}
	}
	for _, ok := range []string{"", "  ", "true", "{}", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, `{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a"}`} {
		if b := repair.Compile(ok).Broken(); b != "" {
			t.Errorf("%q: broken: %s", ok, b)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"path", "path", 0}, {"Path", "path", 0}, {"pth", "path", 1}, {"qeury", "query", 1},
		{"reed_file", "read_file", 1}, {"readfile", "read_file", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{strings.Repeat("a", 300), "a", 1 << 20},
	}
	for _, tt := range tests {
		if got := repair.Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestWords(t *testing.T) {
	tests := map[string]string{
		"file_path": "file path", "filePath": "file path", "FilePath": "file path", "file-path": "file path",
		"baseURL": "base url", "URLPath": "url path", "http2Server": "http2 server", "__x__": "x", "": "",
	}
	for in, want := range tests {
		if got := strings.Join(repair.Words(in), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNumberBounds(t *testing.T) {
	runCases(t, []checkCase{
		{
			name: "a number with a huge exponent is refused before the validator sees it",
			args: `{"path":"a","depth":1e999999}`, status: repair.Invalid,
			diags: []string{"|JSON|invalid JSON|not valid JSON: number at offset 21 is out of range: more than 400 characters, or an exponent beyond ±400"},
		},
		{
			name: "a quoted number with a huge exponent is not converted",
			args: `{"path":"a","ratio":"1e999999"}`, status: repair.Invalid,
			diags: []string{`/ratio|number|string "1e999999"|expected number at /ratio, got string "1e999999"`},
		},
		{
			name: "large exponents within the bound are fine",
			args: `{"path":"a","ratio":1e-400,"depth":1E+400}`, status: repair.Valid,
		},
	})
}

// TestHostile checks that values built to make the repairs slow are
// checked quickly.
func TestHostile(t *testing.T) {
	props := make([]string, 200)
	for i := range props {
		props[i] = fmt.Sprintf("property_number_%03d_with_a_long_name", i)
	}
	s := repair.Compile(required(true, props[:100], props[100:]...))
	var keys []string
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf(`"property_numbr_%03d_with_a_long_nam%d":1`, i%200, i))
	}
	var items []string
	for range 2000 {
		items = append(items, `{"file_pth":"x","depth":"1e400"}`)
	}
	arr := repair.Compile(`{"type":"array","items":{"type":"object","properties":{"file_path":{"type":"string"},"depth":{"type":"integer"}},"required":["file_path"]}}`)
	for _, c := range []struct {
		s    *repair.Schema
		args string
	}{
		{s, "{" + strings.Join(keys, ",") + "}"},
		{arr, "[" + strings.Join(items, ",") + "]"},
		{arr, strings.Repeat("[", 5000) + strings.Repeat("]", 5000)},
		{arr, strings.Repeat("[", 900)},                                                                                 // missing closers, deep
		{repair.Compile(files), `{"path": "` + strings.Repeat("[a](http://a", 5000) + `"}`},                             // links that never close
		{repair.Compile(files), `{"path": "` + strings.Repeat("[a](http://a)", 5000) + `"}`},                            // links that do
		{repair.Compile(files), `{"path": "` + strings.Repeat("[", 3000) + strings.Repeat("a](http://a)", 3000) + `"}`}, // links in links
		{repair.Compile(files), `{"paths": "` + strings.Repeat(`\u0028`, 10000) + `"}`},                                 // escapes make the text look linkable
		{s, "{" + strings.Repeat("k: 'v',", 5000) + "}"},
	} {
		start := time.Now()
		r := c.s.Check(c.args, &repair.Options{Repairs: repair.DefaultRepairs() | repair.SetOf(repair.TruncatedString), PathKeys: []string{"path", "paths"}})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("checking %.40q… took %v (status %d)", c.args, d, r.Status)
		}
	}
}

func TestLongQuotedInteger(t *testing.T) {
	long := strings.Repeat("9", 401)
	r := repair.Compile(`{"type":"integer"}`).Check(`"`+long+`"`, nil)
	if r.Status != repair.Invalid {
		t.Errorf("a quoted integer of 401 digits was %v; the repaired text would not parse", r.Status)
	}
}
