package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
)

// TestOneConsumerServesTwoPresets runs one guard-consumer with a policy
// that gives two agent classes two presets, and an agent of each class
// through the client at the same time, both repeating one call: the
// coder, under cline's preset, is warned at its 3rd call and stopped at
// its 5th; the scout, under gemini-cli's, has its 5th call refused with an
// override and is stopped at its 6th. Each decision names its rule.
func TestOneConsumerServesTwoPresets(t *testing.T) {
	p, err := guard.Parse([]byte("agents:\n  coder: {preset: cline}\n  scout: {preset: gemini-cli}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSystem(t, 4)
	s.startGuard(p)
	c := s.client("acme")
	ctx := context.Background()

	type seen struct {
		verdicts []string
		advice   []string
	}
	var mu sync.Mutex
	got := map[string]*seen{}
	brief := func(d event.Decision) string {
		s := d.Kind.String()
		if d.Reason != "" {
			s += ":" + string(d.Reason)
		}
		if d.Steer != nil {
			s += ":" + string(d.Steer.Kind)
		}
		if d.Rule != "" {
			s += "/" + d.Rule
		}
		return s
	}
	var wg sync.WaitGroup
	for _, agent := range []string{"coder", "scout"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Start(ctx, agent+"-run", client.RunSpec{Agent: agent})
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			var mine seen
			defer func() { mu.Lock(); got[agent] = &mine; mu.Unlock() }()
			for i := 1; i <= 6; i++ {
				v, err := r.Call(ctx, client.Call{Tool: "list_files", Args: `{"path":"src","recursive":true}`})
				if err != nil {
					t.Errorf("%s call %d: %v", agent, i, err)
					return
				}
				// Advice for a call is published before its verdict.
				for len(r.Advice()) > 0 {
					mine.advice = append(mine.advice, fmt.Sprintf("c%d %s", i, brief(<-r.Advice())))
				}
				mine.verdicts = append(mine.verdicts, brief(v.Decision))
				if v.Kind == event.Stop {
					return
				}
				if v.Allowed() {
					if err := r.Result(ctx, client.Result{Call: v.Call, Out: "main.go\nutil.go\n"}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for agent, s := range got {
		t.Logf("%s: verdicts %v; advice %v", agent, s.verdicts, s.advice)
	}
	want := map[string]seen{
		"coder": {
			verdicts: []string{"allow", "allow", "allow", "allow", "stop:LOOP_DETECTED/identical_call"},
			advice:   []string{"c3 advise:avoid_repeat/identical_call"},
		},
		"scout": {
			verdicts: []string{"allow", "allow", "allow", "allow", "reject:LOOP_DETECTED/tool_call_loop", "stop:LOOP_DETECTED/tool_call_loop"},
			advice:   []string{"c5 advise:override/tool_call_loop"},
		},
	}
	for agent, w := range want {
		g := got[agent]
		if g == nil {
			t.Fatalf("%s did not run", agent)
		}
		if strings.Join(g.verdicts, " ") != strings.Join(w.verdicts, " ") || strings.Join(g.advice, " ") != strings.Join(w.advice, " ") {
			t.Errorf("%s: verdicts %v, advice %v; want %v, %v", agent, g.verdicts, g.advice, w.verdicts, w.advice)
		}
	}
}
