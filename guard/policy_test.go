package guard_test

import (
	"strings"
	"testing"

	"github.com/guardstream/guardstream/guard"
)

func TestParse(t *testing.T) {
	p, err := guard.Parse([]byte(`{"loop":{"repeat_limit":7,"exempt":["poll"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Loop.RepeatLimit != 7 || p.Loop.RepeatAdvise != 3 || len(p.Loop.Exempt) != 1 {
		t.Errorf("got %+v; want repeat_limit 7 over the defaults", p.Loop)
	}
	y, err := guard.Parse([]byte("loop:\n  action: inject_steer\nlease:\n  default_ttl_ms: 30000\n"))
	if err != nil || y.Loop.Action != "inject_steer" || y.Lease.DefaultTTL != 30000 || y.Loop.RepeatLimit != 5 {
		t.Errorf("YAML policy: %+v, %v", y, err)
	}
	for doc, says := range map[string]string{
		`{"loop":{"repeat_limt":7}}`:     `unknown field "repeat_limt"`,
		`{"loop":{"repeat_advise":9}}`:   "must be below",
		`{"loop":{"action":"explode"}}`:  `loop.action is "explode"`,
		`{"loop":`:                       "parsing policy",
		`{"lease":{"default_ttl_ms":5}}`: "lease.default_ttl_ms",
	} {
		if _, err := guard.Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%s) = %v; want an error saying %q", doc, err, says)
		}
	}
}

func TestChainFollowsPolicy(t *testing.T) {
	c := guard.Chain(guard.DefaultPolicy())
	if len(c.Processors()) == 0 || c.Processors()[0].Name() != "loop" {
		t.Errorf("chain %v; want the loop guard", c.Processors())
	}
}
