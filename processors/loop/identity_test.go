package loop_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/internal/canon"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/processortest"
)

// identityVector is one test vector of call identity, for ports
// (docs/wire.md, "Call identity"): the inputs, the hashes of each part
// and the signature, all as 16 lower-case hex digits.
type identityVector struct {
	Name       string   `json:"name"`
	Note       string   `json:"note,omitempty"`
	Tool       string   `json:"tool"`
	Args       string   `json:"args"`
	Path       string   `json:"path,omitempty"`
	IgnoreArgs []string `json:"ignore_args,omitempty"`
	ToolHash   string   `json:"tool_hash"`
	ArgsHash   string   `json:"args_hash"`
	PathHash   string   `json:"path_hash"`
	Sig        string   `json:"sig"`
}

// identityInputs are the vectors' inputs; each group of names ending in
// the same letter after a dash has the same signature.
var identityInputs = []identityVector{
	{Name: "read-a", Tool: "read_file", Args: `{"path":"a.go"}`, Note: "the signature of vector decision/advise"},
	{Name: "order-a", Tool: "read_file", Args: `{"n":1,"path":"a.go"}`, Note: "key order does not matter"},
	{Name: "order-b", Tool: "read_file", Args: `{"path":"a.go","n":1}`},
	{Name: "space-a", Tool: "read_file", Args: " {\n  \"path\" : \"a.go\" ,\n  \"n\" : 1\n}\n", Note: "nor whitespace"},
	{Name: "numbers-a", Tool: "read_file", Args: `{"path":"a.go","n":1.0}`, Note: "nor how a number is written: 1, 1.0, 1e0 and 10E-1 are one value"},
	{Name: "numbers-b", Tool: "read_file", Args: `{"path":"a.go","n":10E-1}`},
	{Name: "escapes-a", Tool: "read_file", Args: `{"\u0070ath":"\u0061.go","n":1}`, Note: "nor string escapes"},
	{Name: "types", Tool: "read_file", Args: `{"path":"a.go","n":"1"}`, Note: "types do: the string \"1\" is not the number 1"},
	{Name: "arrays", Tool: "grep", Args: `{"q":["a","b"]}`, Note: "array order does"},
	{Name: "arrays-reversed", Tool: "grep", Args: `{"q":["b","a"]}`},
	{Name: "float", Tool: "grep", Args: `{"limit":0.5}`, Note: "a number that is not an integer below 2^53 hashes by its float64 bits"},
	{Name: "big", Tool: "grep", Args: `{"limit":9007199254740993}`, Note: "2^53+1 is read as a float64, so it hashes as 2^53 does"},
	{Name: "empty-a", Tool: "list_dir", Args: ``, Note: "no arguments, all-whitespace arguments and {} are the same"},
	{Name: "empty-b", Tool: "list_dir", Args: "  "},
	{Name: "empty-c", Tool: "list_dir", Args: `{}`},
	{Name: "invalid", Tool: "list_dir", Args: ` {"path": `, Note: "text that is not JSON hashes as the text with its surrounding whitespace trimmed, tagged apart from JSON"},
	{Name: "duplicate", Tool: "list_dir", Args: `{"a":1,"a":1}`, Note: "a repeated key counts twice"},
	{Name: "nested", Tool: "edit", Args: `{"opts":{"b":[1,{"c":null,"d":true}],"a":false}}`},
	{Name: "path-set", Tool: "edit_file", Args: `{"old":"x","new":"y"}`, Path: "src/a.go", Note: "path is hashed apart from args"},
	{Name: "path-unset", Tool: "edit_file", Args: `{"old":"x","new":"y"}`, Note: "so the same call without path is another call"},
	{Name: "path-in-args", Tool: "edit_file", Args: `{"old":"x","new":"y","path":"src/a.go"}`, Note: "and a path inside args is part of args, not path"},
	{Name: "ignore-a", Tool: "write_to_file", Args: `{"path":"a.ts","task_progress":"- [x] 1"}`, IgnoreArgs: []string{"task_progress"}, Note: "ignore_args leaves top-level keys out"},
	{Name: "ignore-b", Tool: "write_to_file", Args: `{"path":"a.ts","task_progress":"- [x] 2"}`, IgnoreArgs: []string{"task_progress"}},
	{Name: "ignore-c", Tool: "write_to_file", Args: `{"path":"a.ts"}`},
	{Name: "unicode", Tool: "search", Args: `{"q":"café 🚀"}`, Path: "docs/naïve.md"},
}

func hex(h uint64) string { return fmt.Sprintf("%016x", h) }

func TestIdentityVectors(t *testing.T) {
	vs := make([]identityVector, len(identityInputs))
	for i, v := range identityInputs {
		var ignore []uint64
		for _, k := range v.IgnoreArgs {
			ignore = append(ignore, canon.KeyHash(k))
		}
		a, _ := canon.HashIgnoring(v.Args, ignore)
		tool, path := xxhash.Sum64String(v.Tool), xxhash.Sum64String(v.Path)
		v.ToolHash, v.ArgsHash, v.PathHash, v.Sig = hex(tool), hex(a), hex(path), hex(canon.Combine(tool, a, path))
		if v.IgnoreArgs == nil && v.Sig != loop.SigString(loop.Signature(v.Tool, v.Args, v.Path)) {
			t.Errorf("%s: the vector's signature is not loop.Signature's", v.Name)
		}
		vs[i] = v
	}
	same := func(a, b string) {
		t.Helper()
		var x, y string
		for _, v := range vs {
			switch v.Name {
			case a:
				x = v.Sig
			case b:
				y = v.Sig
			}
		}
		if x != y {
			t.Errorf("%s and %s differ", a, b)
		}
	}
	for _, g := range [][]string{{"order-a", "order-b", "space-a", "numbers-a", "numbers-b", "escapes-a"}, {"empty-a", "empty-b", "empty-c"}, {"ignore-a", "ignore-b", "ignore-c"}} {
		for _, n := range g[1:] {
			same(g[0], n)
		}
	}
	for _, p := range [][2]string{{"order-a", "types"}, {"arrays", "arrays-reversed"}, {"path-set", "path-unset"}, {"path-set", "path-in-args"}} {
		for _, v := range vs {
			for _, w := range vs {
				if v.Name == p[0] && w.Name == p[1] && v.Sig == w.Sig {
					t.Errorf("%s and %s are the same", p[0], p[1])
				}
			}
		}
	}
	b, err := json.MarshalIndent(vs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	processortest.GoldenFile(t, "../../event/testdata/identity.json", string(b)+"\n")
}
