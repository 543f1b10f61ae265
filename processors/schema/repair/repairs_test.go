package repair_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/processors/schema/repair"
)

// only returns options with just the given repairs.
func only(rs ...repair.Repair) *repair.Options {
	return &repair.Options{Repairs: repair.SetOf(rs...), PathKeys: []string{"path", "paths", "file_path"}}
}

// defaults returns the default repairs with path keys, as the guard uses
// them.
func defaults() *repair.Options {
	return &repair.Options{Repairs: repair.DefaultRepairs(), PathKeys: []string{"path", "paths", "file_path"}}
}

func TestNames(t *testing.T) {
	names := repair.Names()
	if len(names) != 16 || !slices.Contains(names, "markdown_link") {
		t.Fatalf("names %v", names)
	}
	for _, name := range names {
		r, ok := repair.ParseRepair(name)
		if !ok || r.String() != name {
			t.Errorf("%s: parsed as %v %v", name, r, ok)
		}
	}
	if _, ok := repair.ParseRepair("fix_everything"); ok {
		t.Error("an unknown name parsed")
	}
	if d := repair.DefaultRepairs(); d.Has(repair.TruncatedString) || !d.Has(repair.MissingClosers) || !d.Has(repair.MarkdownLink) {
		t.Errorf("default repairs %b", d)
	}
}

func TestSyntaxRepairs(t *testing.T) {
	runCases(t, []checkCase{
		{
			name: "bare keys", args: `{path: "a", depth: 2, $x_1: 3}`, schema: `{"type":"object"}`, status: repair.Repaired, want: `{"$x_1":3,"depth":2,"path":"a"}`,
			diags: []string{"|JSON|unquoted key|quoted 3 unquoted keys|bare_keys"},
		},
		{
			name: "a bare word that is not followed by a colon is not a key", args: `{path "a"}`, status: repair.Invalid,
			diags: []string{"|JSON|invalid JSON|not valid JSON: invalid character 'p' looking for beginning of object key string at offset 2"},
		},
		{
			name: "single quotes with an escaped quote inside", args: `{'path': 'it\'s'}`, status: repair.Repaired, want: `{"path":"it's"}`,
			diags: []string{"|JSON|single or smart quotes|put 2 strings in single or smart quotes in double quotes|quotes"},
		},
		{
			name: "smart single quotes", args: "{\u2018path\u2019: \u2018a\u2019}", status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{"|JSON|single or smart quotes|put 2 strings in single or smart quotes in double quotes|quotes"},
		},
		{
			name: "an apostrophe in a single-quoted string ends it", args: `{'path': 'don't'}`, status: repair.Invalid,
			diags: []string{"*"},
		},
		{
			name: "a literal control character", args: "{\"path\": \"a\x01b\"}", status: repair.Repaired, want: `{"path":"a\u0001b"}`,
			diags: []string{"|JSON|control character in a string|escaped a control character in a string|control_chars"},
		},
		{
			name: "missing closers after a complete number", args: `{"path": "a", "opts": {"depth": 2`, status: repair.Repaired, want: `{"opts":{"depth":2},"path":"a"}`,
			diags: []string{"|JSON|missing closing bracket|added 2 missing closing brackets|missing_closers"},
		},
		{
			name: "a trailing comma at the end needs both repairs", args: `{"path": "a", "paths": ["x",`, status: repair.Repaired, want: `{"path":"a","paths":["x"]}`,
			diags: []string{
				"|JSON|trailing comma|removed a trailing comma|trailing_comma",
				"|JSON|missing closing bracket|added 2 missing closing brackets|missing_closers",
			},
		},
		{
			name: "a value cut off after its key is not guessed", args: `{"path": "a", "depth":`, status: repair.Invalid,
			diags: []string{"|JSON|invalid JSON|not valid JSON: unexpected end of input"},
		},
		{
			name: "a cut-off string is not closed by default", args: `{"path": "a`, status: repair.Invalid,
			diags: []string{"|JSON|invalid JSON|not valid JSON: unexpected end of input"},
		},
		{
			name: "a cut-off string with truncated_string", args: `{"path": "a`, status: repair.Repaired, want: `{"path":"a"}`,
			opts: only(repair.MissingClosers, repair.TruncatedString),
			diags: []string{
				"|JSON|missing closing bracket|added a missing closing bracket|missing_closers",
				"|JSON|string cut off at the end|closed a string cut off at the end of the text|truncated_string",
			},
		},
		{
			name: "a cut-off string needs missing_closers as well", args: `{"path": "a`, status: repair.Invalid,
			opts:  only(repair.TruncatedString),
			diags: []string{"|JSON|invalid JSON|not valid JSON: unexpected end of input"},
		},
		{
			name: "repairs combine: fence, quotes, bare keys, literals, trailing comma", args: "```json\n{path: 'a', recursive: False,}\n```",
			status: repair.Repaired, want: `{"path":"a","recursive":false}`,
			diags: []string{
				"|JSON|markdown code fence|removed the markdown code fence around the JSON|code_fence",
				"|JSON|trailing comma|removed a trailing comma|trailing_comma",
				"|JSON|unquoted key|quoted 2 unquoted keys|bare_keys",
				"|JSON|single or smart quotes|put a string in single or smart quotes in double quotes|quotes",
				"|JSON|Python literal|replaced a Python literal (True, False or None) with JSON's|python_literals",
			},
		},
		{
			name: "a repair left out is not made", args: `{path: 'a'}`, status: repair.Invalid, opts: only(repair.BareKeys),
			diags: []string{"|JSON|invalid JSON|not valid JSON: invalid character 'p' looking for beginning of object key string at offset 2"},
		},
		{
			name: "Python literals need a word boundary", args: `{"path": "a", "recursive": Trueish}`, status: repair.Invalid,
			diags: []string{"*"},
		},
	})
}

func TestValueRepairs(t *testing.T) {
	runCases(t, []checkCase{
		{
			name: "unwrap the arguments from a wrapper key", args: `{"args": {"path": "a", "depth": 1}}`, status: repair.Repaired, want: `{"depth":1,"path":"a"}`,
			diags: []string{"|the arguments|the arguments under args|took the arguments out of the wrapper key args|unwrap"},
		},
		{
			name: "unwrap, then repair what was wrapped", args: `{"input": {"file_path": "a", "depth": "1"}}`, status: repair.Repaired, want: `{"depth":1,"path":"a"}`,
			diags: []string{
				"|the arguments|the arguments under input|took the arguments out of the wrapper key input|unwrap",
				`/depth|integer|string "1"|converted string "1" to integer 1|coerce_scalar`,
				"/file_path|path|file_path|renamed file_path to path|rename_key",
			},
		},
		{
			name: "unwrap arguments sent as JSON text", args: `{"arguments": "{\"path\": \"a\"}"}`, schema: required(true, []string{"path"}),
			status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{"|the arguments|the arguments under arguments|took the arguments out of the wrapper key arguments, where they were JSON text|unwrap"},
		},
		{
			name: "a wrapper key the schema declares is a property", schema: `{"type":"object","properties":{"input":{"type":"object"}},"required":["input"],"additionalProperties":false}`,
			args: `{"input": {"path": "a"}}`, status: repair.Valid,
		},
		{
			name: "only a single wrapper key is unwrapped", args: `{"args": {"path": "a"}, "depth": 1}`, status: repair.Invalid, diags: []string{"*", "*"},
		},
		{
			name: "whole arguments sent as JSON text", schema: required(true, []string{"path"}), args: `"{\"path\": \"a\"}"`,
			status: repair.Repaired, want: `{"path":"a"}`,
			diags: []string{`|object|string "{\"path\": \"a\"}"|parsed string "{\"path\": \"a\"}" at the top level as the object it holds|parse_string`},
		},
		{
			name: "a stringified array of integers", args: `{"path": "a", "counts": " [1, 2] "}`, status: repair.Repaired, want: `{"counts":[1,2],"path":"a"}`,
			diags: []string{`/counts|array|string " [1, 2] "|parsed string " [1, 2] " at /counts as the array it holds|parse_string`},
		},
		{
			name: "a stringified object where an array is wanted is wrapped, and then fails", args: `{"path": "a", "paths": "{\"x\": 1}"}`, status: repair.Repaired,
			want:  `{"path":"a","paths":["{\"x\": 1}"]}`,
			diags: []string{`/paths|array|string "{\"x\": 1}"|wrapped string "{\"x\": 1}" at /paths in an array|wrap_array`},
		},
		{
			name: "a bare string where an array is wanted", args: `{"path": "a", "paths": "b"}`, status: repair.Repaired, want: `{"path":"a","paths":["b"]}`,
			diags: []string{`/paths|array|string "b"|wrapped string "b" at /paths in an array|wrap_array`},
		},
		{
			name: "a number where an array of integers is wanted", args: `{"path": "a", "counts": 3}`, status: repair.Repaired, want: `{"counts":[3],"path":"a"}`,
			diags: []string{`/counts|array|integer 3|wrapped integer 3 at /counts in an array|wrap_array`},
		},
		{
			name: "wrap, then convert the item", args: `{"path": "a", "counts": "3"}`, status: repair.Repaired, want: `{"counts":[3],"path":"a"}`,
			diags: []string{
				`/counts|array|string "3"|wrapped string "3" at /counts in an array|wrap_array`,
				`/counts/0|integer|string "3"|converted string "3" to integer 3|coerce_scalar`,
			},
		},
		{
			name: "null for an optional property is dropped", args: `{"path": "a", "depth": null, "opts": {"maxCount": null}}`, status: repair.Repaired,
			want: `{"opts":{},"path":"a"}`,
			diags: []string{
				"/depth|integer, or nothing|null|dropped null for the optional property depth|drop_null",
				"/opts/maxCount|integer, or nothing|null|dropped null for the optional property maxCount in /opts|drop_null",
			},
		},
		{
			name: "null for a required property is not dropped", args: `{"path": null}`, status: repair.Invalid,
			diags: []string{"/path|string|null|expected string at /path, got null"},
		},
		{
			name: "null where the schema allows it stays", args: `{"path": "a", "n": null}`, status: repair.Valid,
		},
		{
			name: "null in an array is not dropped", args: `{"path": "a", "counts": [1, null]}`, status: repair.Invalid,
			diags: []string{"/counts/1|integer|null|expected integer at /counts/1, got null"},
		},
		{
			name: "value repairs left out are not made", args: `{"path": "a", "paths": "b", "depth": null}`, status: repair.Invalid,
			opts: only(repair.RenameKey, repair.CoerceScalar),
			diags: []string{
				"/depth|integer|null|expected integer at /depth, got null",
				`/paths|array|string "b"|expected array at /paths, got string "b"`,
			},
		},
	})
}

func TestLenientNull(t *testing.T) {
	lenient := &repair.Options{Repairs: repair.DefaultRepairs(), LenientNull: true}
	strict := &repair.Options{LenientNull: true} // validate only
	runCases(t, []checkCase{
		{
			name: "nulls for optional properties are valid as sent", args: `{"path": "a", "depth": null, "opts": {"maxCount": null}}`, opts: lenient,
			status: repair.Valid,
		},
		{
			name: "also in validate-only mode", args: `{"path": "a", "depth": null}`, opts: strict, status: repair.Valid,
		},
		{
			name: "a required property still must not be null", args: `{"path": null}`, opts: lenient, status: repair.Invalid,
			diags: []string{"/path|string|null|expected string at /path, got null"},
		},
		{
			name: "the nulls go when the arguments are rewritten anyway", args: `{"path": "a", "depth": null, "recursive": "true"}`, opts: lenient,
			status: repair.Repaired, want: `{"path":"a","recursive":true}`,
			diags: []string{
				"/depth|integer, or nothing|null|dropped null for the optional property depth|drop_null",
				`/recursive|boolean|string "true"|converted string "true" to boolean true|coerce_scalar`,
			},
		},
		{
			name: "the failures of a refused call leave the nulls out", args: `{"path": "a", "depth": null, "mode": "c"}`, opts: strict, status: repair.Invalid,
			diags: []string{`/mode|one of ["a" "b"]|string "c"|expected one of ["a" "b"] at /mode, got string "c"`},
		},
	})
}

func TestMarkdownLinks(t *testing.T) {
	o := defaults()
	runCases(t, []checkCase{
		{
			name: "an auto-linked file name in a path", args: `{"path": "[a.py](http://a.py)"}`, opts: o, status: repair.Repaired, want: `{"path":"a.py"}`,
			diags: []string{`/path|a path|string "[a.py](http://a.py)"|removed the markdown link around "a.py" at /path|markdown_link`},
		},
		{
			name: "an auto-link inside a path, with https and another case", args: `{"path": "src/gemini_[client.py](https://Client.py)"}`, opts: o,
			status: repair.Repaired, want: `{"path":"src/gemini_client.py"}`,
			diags: []string{`/path|a path|string "src/gemini_[client.py](https://Client.py"…|removed the markdown link around "src/gemini_client.py" at /path|markdown_link`},
		},
		{
			name: "an angle-bracket auto-link", args: `{"path": "<http://README.md>"}`, opts: o, status: repair.Repaired, want: `{"path":"README.md"}`,
			diags: []string{`/path|a path|string "<http://README.md>"|removed the markdown link around "README.md" at /path|markdown_link`},
		},
		{
			name: "links in an array of paths, and links in links", args: `{"path": "a", "paths": ["[b.md](http://b.md)", "c", "[[d.go](http://d.go)](http://d.go)"]}`, opts: o,
			status: repair.Repaired, want: `{"path":"a","paths":["b.md","c","d.go"]}`,
			diags: []string{
				`/paths/0|a path|string "[b.md](http://b.md)"|removed the markdown link around "b.md" at /paths/0|markdown_link`,
				`/paths/2|a path|string "[[d.go](http://d.go)](http://d.go)"|removed the markdown link around "d.go" at /paths/2|markdown_link`,
			},
		},
		{
			name: "a link whose text is not its address is left", args: `{"path": "[docs](http://example.com/docs)"}`, opts: o, status: repair.Valid,
		},
		{
			name: "an angle-bracket URL with a path is left", args: `{"path": "<https://example.com/a.tar.gz>"}`, opts: o, status: repair.Valid,
		},
		{
			name: "links outside path parameters are left", schema: `{"type":"object"}`, args: `{"note": "[a.py](http://a.py)"}`, opts: o, status: repair.Valid,
		},
		{
			name: "a link written with escapes is found", args: `{"path": "[a.py]\u0028http://a.py)"}`, opts: o, status: repair.Repaired, want: `{"path":"a.py"}`,
			diags: []string{"*"},
		},
		{
			name: "with markdown_link off the link stays", args: `{"path": "[a.py](http://a.py)"}`, opts: only(repair.RenameKey), status: repair.Valid,
		},
		{
			name: "a link removed, then a rename", args: `{"file_path": "[a.py](http://a.py)"}`, schema: required(true, []string{"path"}), opts: o,
			status: repair.Repaired, want: `{"path":"a.py"}`,
			diags: []string{
				`/file_path|a path|string "[a.py](http://a.py)"|removed the markdown link around "a.py" at /file_path|markdown_link`,
				"/file_path|path|file_path|renamed file_path to path|rename_key",
			},
		},
	})
}

func TestValidateOnly(t *testing.T) {
	none := &repair.Options{PathKeys: []string{"path"}}
	for _, args := range []string{
		"```json\n{\"path\": \"a\"}\n```", `{"path": "a",}`, `{path: "a"}`, `{"path": 'a'}`, `{"path": "a"`,
		`{"file_path": "a"}`, `{"path": "a", "depth": "2"}`, `{"args": {"path": "a"}}`, `{"path": "a", "paths": "b"}`,
		`{"path": "a", "depth": null}`, `{"path": "a", "counts": "[1]"}`,
	} {
		if r := repair.Compile(files).Check(args, none); r.Status != repair.Invalid {
			t.Errorf("%s: %+v, want invalid", args, r)
		}
	}
	if r := repair.Compile(files).Check(`{"path": "[a.py](http://a.py)"}`, none); r.Status != repair.Valid {
		t.Errorf("a link in validate-only mode: %+v", r)
	}
}

func TestCheckSyntax(t *testing.T) {
	o := defaults()
	for _, tc := range []struct {
		args   string
		status repair.Status
		want   string
		repair string
	}{
		{args: ``, status: repair.Valid},
		{args: ` {"anything": [1, "two", {"three": null}]} `, status: repair.Valid},
		{args: `"just a string"`, status: repair.Valid},
		{args: `{"file_path": "a", "depth": "2", "paths": "b"}`, status: repair.Valid}, // no schema: nothing to rename, convert or wrap
		{args: `{'cmd': 'ls',}`, status: repair.Repaired, want: `{"cmd":"ls"}`, repair: "trailing_comma quotes"},
		{args: `{"path": "[a.py](http://a.py)"}`, status: repair.Repaired, want: `{"path":"a.py"}`, repair: "markdown_link"},
		{args: `{"cmd": "ls"} {"cmd": "pwd"}`, status: repair.Invalid},
		{args: `not json`, status: repair.Invalid},
	} {
		r := repair.CheckSyntax(tc.args, o)
		var names []string
		for _, d := range r.Diags {
			if d.Repair != "" {
				names = append(names, d.Repair)
			}
		}
		if r.Status != tc.status || r.Args != tc.want || strings.Join(names, " ") != tc.repair {
			t.Errorf("%s: %v %s %v, want %v %s %s", tc.args, r.Status, r.Args, names, tc.status, tc.want, tc.repair)
		}
	}
	if r := repair.CheckSyntax(`{"cmd": "ls",}`, &repair.Options{}); r.Status != repair.Invalid {
		t.Errorf("validate-only syntax check: %+v", r)
	}
}

// BenchmarkCheckSyntax measures the JSON check of a call without a schema:
// valid JSON, which allocates nothing, and JSON text the repairs mend.
func BenchmarkCheckSyntax(b *testing.B) {
	o := defaults()
	for _, bc := range []struct{ name, args string }{
		{"valid", `{"path":"src/pkg1/file.go","depth":2,"recursive":true}`},
		{"repaired", `{path: 'src/pkg1/file.go', depth: 2, recursive: True,}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				repair.CheckSyntax(bc.args, o)
			}
		})
	}
}
