package repair

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/canon"
)

// fuzzSchemas are the fixed schemas FuzzRepair checks arbitrary text
// against: a tool's arguments, an array of objects, alternatives, a bare
// scalar, and arguments with arrays, an object and optional properties for
// the repairs of values.
var fuzzSchemas = []string{
	`{"type":"object","properties":{"path":{"type":"string"},"depth":{"type":"integer","minimum":0},"ratio":{"type":"number"},
	  "recursive":{"type":"boolean"},"mode":{"enum":["a","b"]},"opts":{"type":"object","properties":{"maxCount":{"type":"integer"}},"additionalProperties":false},
	  "paths":{"type":"array","items":{"type":"string"}}},"required":["path"],"additionalProperties":false}`,
	`{"type":"array","items":{"type":"object","properties":{"file_name":{"type":"string"},"line":{"type":"integer"}},"required":["file_name"]},"maxItems":8}`,
	`{"anyOf":[{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]},{"type":"object","properties":{"url":{"type":"string","pattern":"^https?://"}},"required":["url"]}],
	  "properties":{"limit":{"type":["integer","null"]}}}`,
	`{"type":"boolean"}`,
	`{"type":"object","properties":{"file_path":{"type":"string"},"ids":{"type":"array","items":{"type":"integer"}},"files":{"type":"array","items":{"type":"string"}},
	  "meta":{"type":"object","properties":{"tag":{"type":"string"}}},"limit":{"type":"integer"},"note":{"type":["string","null"]}},"required":["file_path"],"additionalProperties":false}`,
}

// fuzzOptions are the options each text is checked with: the defaults with
// path keys, every repair with lenient nulls, and validate-only.
var fuzzOptions = []*Options{
	{Repairs: DefaultRepairs(), PathKeys: []string{"path", "paths", "file_path", "files"}},
	{Repairs: SetOf(repairsBut(numRepairs)...), LenientNull: true, PathKeys: []string{"path", "file_path", "files"}},
	{},
}

var fuzzSeeds = []string{
	``, `{}`, `[]`, `null`, `"true"`, `{"path":"a"}`, `{"file_path":"a","depth":"3"}`, `{"filePath":"a","opts":{"max_count":"2"}}`,
	"```json\n{\"path\":\"a\",}\n```", `{"path":"a","paths":["x",],}`, `{"path":1,"depth":"ten","mode":"c"}`, `[{"fileName":"a","line":"7"}]`,
	`{"Query":"x","limit":"5"}`, `{"url":"ftp://x"}`, `{"path":"\ud83d\ude00\ud800","depth":"1e3"}`, `{"path":"a\u0000b","ratio":"-0.5e-3"}`,
	`{"a":{"b":{"c":[[[[1]]]]}}}`, `{"path":"a","path":"b"}`, "{\"path\":\"\xff\"}", `{"p": tru}`, `{"path":"a"} trailing`,
	// The repairs other harnesses make.
	"{\"path\":\"a\nb\"}", `{path: "a", depth: 2}`, `{'path': 'a', 'paths': ['x']}`, "{\u201cpath\u201d: \u201ca\u201d}",
	`{"path": "a", "opts": {"maxCount": 1`, `{"path": "a`, `{"path": "[a.py](http://a.py)", "paths": ["<http://b.md>"]}`,
	`{"args": {"file_path": "a"}}`, `{"input": "{\"file_path\": \"a\"}"}`, `{"file_path": "a", "ids": "[1, 2]"}`, `{"file_path": "a", "files": "b"}`,
	`{"file_path": "a", "limit": null, "note": null, "meta": {"tag": null}}`, `{"recursive": True, "path": None}`, `{"path": "C:\users\x"}`,
	`{"file_path": "[[a](http://a)](http://a)", "ids": 3}`, `{"path": "a",,}`, `{'path': 'it\'s'}`,
	// Repairs that would nest deeper than the wire allows: closing 65
	// arrays, and parsing a string of 64 into a member.
	strings.Repeat("[", event.MaxJSONDepth+1) + "0",
	`{"file_path": "a", "meta": "{\"x\": ` + strings.Repeat("[", event.MaxJSONDepth-1) + "0" + strings.Repeat("]", event.MaxJSONDepth-1) + `}"}`,
}

// FuzzRepair checks arbitrary text against the fixed schemas, with each of
// the options: nothing panics; the same text always gives the same result;
// a repair is idempotent (the repaired text validates as it is, so
// repairing it again changes nothing) and canonical (re-encoding it changes
// nothing, and its canonical hash is stable); valid input is never changed
// (text that is JSON and satisfies the schema, with no markdown link in a
// path parameter, is valid under every option); validate-only never
// repairs; and the parser and the syntax check agree with encoding/json.
func FuzzRepair(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	schemas := make([]*Schema, len(fuzzSchemas))
	for i, text := range fuzzSchemas {
		if schemas[i] = Compile(text); schemas[i].Broken() != "" {
			f.Fatalf("schema %d: %s", i, schemas[i].Broken())
		}
	}
	f.Fuzz(func(t *testing.T, args string) {
		st := time.Now()
		defer func() {
			if d := time.Since(st); d > 2*time.Second {
				t.Fatalf("checking %q took %v", args, d)
			}
		}()
		checkParse(t, args)
		for j, o := range fuzzOptions {
			checkSyntax(t, args, o)
			for i, s := range schemas {
				r := s.Check(args, o)
				if again := s.Check(args, o); !sameResult(r, again) {
					t.Fatalf("schema %d options %d: two checks of %q differ: %+v and %+v", i, j, args, r, again)
				}
				if r.Status != Valid && s.Check(args, &Options{}).Status == Valid && !holdsLink(args, o) {
					t.Fatalf("schema %d options %d: %q is valid as sent, but checks as %+v", i, j, args, r)
				}
				switch r.Status {
				case Valid:
					if r.Args != "" || len(r.Diags) != 0 {
						t.Fatalf("schema %d options %d: valid with args or diags: %+v", i, j, r)
					}
				case Repaired:
					if o.Repairs == 0 {
						t.Fatalf("schema %d: validate-only repaired %q: %+v", i, args, r)
					}
					checkRepaired(t, s.Check, args, r, o)
				case Invalid:
					if len(r.Diags) == 0 || len(r.Diags) > MaxDiags || r.Count < len(r.Diags) {
						t.Fatalf("schema %d options %d: invalid with %d diags of %d: %+v", i, j, len(r.Diags), r.Count, r)
					}
					for _, d := range r.Diags {
						if d.Msg == "" {
							t.Fatalf("schema %d options %d: diag without a message: %+v", i, j, d)
						}
					}
				default:
					t.Fatalf("schema %d options %d: status %d", i, j, r.Status)
				}
			}
		}
	})
}

// holdsLink reports whether text is JSON with a markdown link that o has
// removed from a path parameter.
func holdsLink(text string, o *Options) bool {
	v, err := parse(text)
	if err != nil {
		return false
	}
	_, fixes := unlinkPaths(text, v, o, nil)
	return len(fixes) > 0
}

// checkSyntax checks CheckSyntax on text: wellFormed agrees with parse,
// JSON without links is valid as sent, and a repair is idempotent.
func checkSyntax(t *testing.T, text string, o *Options) {
	t.Helper()
	_, err := parse(text)
	if wf := wellFormed(text); wf != (err == nil) {
		t.Fatalf("wellFormed(%q) = %v, but parse says %v", text, wf, err)
	}
	r := CheckSyntax(text, o)
	switch {
	case (err == nil || isBlank(text)) && !holdsLink(text, o) && r.Status != Valid:
		t.Fatalf("syntax check of %q, which is JSON: %+v", text, r)
	case r.Status == Repaired:
		checkRepaired(t, func(s string, o *Options) Result { return CheckSyntax(s, o) }, text, r, o)
	}
}

func checkRepaired(t *testing.T, check func(string, *Options) Result, args string, r Result, o *Options) {
	t.Helper()
	if len(r.Diags) == 0 || len(r.Diags) > MaxRepairDiags {
		t.Fatalf("repaired %q with %d diags", args, len(r.Diags))
	}
	for _, d := range r.Diags {
		if rp, ok := ParseRepair(d.Repair); !ok || !o.Repairs.Has(rp) && !(o.LenientNull && rp == DropNull) {
			t.Fatalf("repaired %q with a diag that names no allowed repair: %+v", args, d)
		}
	}
	if again := check(r.Args, o); again.Status != Valid {
		t.Fatalf("repaired %q to %q, which checks as %+v", args, r.Args, again)
	}
	v, err := parse(r.Args)
	if err != nil {
		t.Fatalf("repaired %q to %q, which is not JSON: %v", args, r.Args, err)
	}
	if enc := encode(v); enc != r.Args {
		t.Fatalf("repaired text %q is not canonical: it re-encodes as %q", r.Args, enc)
	}
	h, ok := canon.Hash(r.Args)
	if !ok {
		t.Fatalf("canon cannot hash the repaired text %q", r.Args)
	}
	if h2, _ := canon.Hash(check(args, o).Args); h2 != h {
		t.Fatalf("the canonical hash of the repair of %q is not stable", args)
	}
}

// checkParse compares parse with encoding/json: both accept or both
// refuse, and accepted text gives equal values.
func checkParse(t *testing.T, text string) {
	t.Helper()
	v, err := parse(text)
	if err != nil && (strings.Contains(err.Error(), "nested deeper") || strings.Contains(err.Error(), "out of range")) {
		return // encoding/json allows deeper nesting and any number
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var want any
	werr := dec.Decode(&want)
	if werr == nil && strings.TrimLeft(text[dec.InputOffset():], " \t\r\n") != "" {
		werr = &syntaxError{"trailing text"}
	}
	switch {
	case (err == nil) != (werr == nil):
		t.Fatalf("parse(%q): error %v, encoding/json says %v", text, err, werr)
	case err == nil && !reflect.DeepEqual(v, want):
		t.Fatalf("parse(%q) = %#v, encoding/json gives %#v", text, v, want)
	}
}

func sameResult(a, b Result) bool {
	return a.Status == b.Status && a.Args == b.Args && a.Count == b.Count && slices.Equal(a.Diags, b.Diags)
}
