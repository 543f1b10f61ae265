package guard_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/guard"
)

// FuzzParse checks the policy parser on arbitrary YAML and JSON: it never
// panics, answers in bounded time, and a policy it accepts survives
// -print-policy: printed as JSON and parsed again, it is the same policy,
// printed the same.
func FuzzParse(f *testing.F) {
	def, err := json.Marshal(guard.DefaultPolicy())
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(def), `{}`, ``, `{"loop":{"repeat_limit":7,"exempt":["poll"]}}`,
		"loop:\n  action: inject_steer\nlease:\n  default_ttl_ms: 30000\n",
		"policy:\n  protected: ['.git/**', '**/.env']\n  shell:\n    destructive: false\n",
		`{"loop":{"repeat_limt":7}}`, `{"loop":{"repeat_advise":9}}`, `{"loop":`, "- a\n- b\n", "a: &a [1]\nb: *a\n",
		"tools:\n  path_keys: [path, file]\n", `{"budget":{"max_cost":1e30}}`, `{"lease":{"default_ttl_ms":-1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		start := time.Now()
		p, err := guard.Parse(b)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("parsing %d bytes took %v", len(b), d)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "guard: ") {
				t.Fatalf("error %q does not say it is the policy's", err)
			}
			return
		}
		printed, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("printing %q: %v", b, err)
		}
		again, err := guard.Parse(printed)
		if err != nil {
			t.Fatalf("%q printed as %s does not parse: %v", b, printed, err)
		}
		reprinted, _ := json.Marshal(again)
		if !bytes.Equal(printed, reprinted) {
			t.Fatalf("%q printed as\n%s\nparses and prints as\n%s", b, printed, reprinted)
		}
	})
}
