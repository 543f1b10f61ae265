package repair

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/canon"
)

// fuzzSchemas are the fixed schemas FuzzRepair checks arbitrary text
// against: a tool's arguments, an array of objects, alternatives, and a
// bare scalar.
var fuzzSchemas = []string{
	`{"type":"object","properties":{"path":{"type":"string"},"depth":{"type":"integer","minimum":0},"ratio":{"type":"number"},
	  "recursive":{"type":"boolean"},"mode":{"enum":["a","b"]},"opts":{"type":"object","properties":{"maxCount":{"type":"integer"}},"additionalProperties":false},
	  "paths":{"type":"array","items":{"type":"string"}}},"required":["path"],"additionalProperties":false}`,
	`{"type":"array","items":{"type":"object","properties":{"file_name":{"type":"string"},"line":{"type":"integer"}},"required":["file_name"]},"maxItems":8}`,
	`{"anyOf":[{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]},{"type":"object","properties":{"url":{"type":"string","pattern":"^https?://"}},"required":["url"]}],
	  "properties":{"limit":{"type":["integer","null"]}}}`,
	`{"type":"boolean"}`,
}

var fuzzSeeds = []string{
	``, `{}`, `[]`, `null`, `"true"`, `{"path":"a"}`, `{"file_path":"a","depth":"3"}`, `{"filePath":"a","opts":{"max_count":"2"}}`,
	"```json\n{\"path\":\"a\",}\n```", `{"path":"a","paths":["x",],}`, `{"path":1,"depth":"ten","mode":"c"}`, `[{"fileName":"a","line":"7"}]`,
	`{"Query":"x","limit":"5"}`, `{"url":"ftp://x"}`, `{"path":"\ud83d\ude00\ud800","depth":"1e3"}`, `{"path":"a\u0000b","ratio":"-0.5e-3"}`,
	`{"a":{"b":{"c":[[[[1]]]]}}}`, `{"path":"a","path":"b"}`, "{\"path\":\"\xff\"}", `{"p": tru}`, `{"path":"a"} trailing`,
}

// FuzzRepair checks arbitrary text against the fixed schemas: nothing
// panics, the same text always gives the same result, a repair is
// idempotent (the repaired text validates as it is, so repairing it again
// changes nothing) and canonical (re-encoding it changes nothing, and its
// canonical hash is stable), and the parser agrees with encoding/json.
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
		for i, s := range schemas {
			r := s.Check(args)
			if again := s.Check(args); !sameResult(r, again) {
				t.Fatalf("schema %d: two checks of %q differ: %+v and %+v", i, args, r, again)
			}
			switch r.Status {
			case Valid:
				if r.Args != "" || len(r.Diags) != 0 {
					t.Fatalf("schema %d: valid with args or diags: %+v", i, r)
				}
			case Repaired:
				checkRepaired(t, s, args, r)
			case Invalid:
				if len(r.Diags) == 0 || len(r.Diags) > MaxDiags || r.Count < len(r.Diags) {
					t.Fatalf("schema %d: invalid with %d diags of %d: %+v", i, len(r.Diags), r.Count, r)
				}
				for _, d := range r.Diags {
					if d.Msg == "" {
						t.Fatalf("schema %d: diag without a message: %+v", i, d)
					}
				}
			default:
				t.Fatalf("schema %d: status %d", i, r.Status)
			}
		}
	})
}

func checkRepaired(t *testing.T, s *Schema, args string, r Result) {
	t.Helper()
	if len(r.Diags) == 0 || len(r.Diags) > MaxRepairDiags {
		t.Fatalf("repaired %q with %d diags", args, len(r.Diags))
	}
	if again := s.Check(r.Args); again.Status != Valid {
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
	if h2, _ := canon.Hash(s.Check(args).Args); h2 != h {
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
