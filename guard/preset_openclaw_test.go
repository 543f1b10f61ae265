package guard_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/guard"
)

// TestPresetOpenClaw ports the detection cases of OpenClaw's
// src/agents/tool-loop-detection.test.ts at commit
// 0410b692512e3dc7f52a82e7a9ddb875b1548581. OpenClaw judges a call before
// it runs against the calls before it, so its "N recorded, then detect"
// is the N+1th call here; a blocked call is refused, and results rules
// judge when a result arrives, so a block that OpenClaw makes at the next
// call is a refusal published with the result before it. OpenClaw's loop
// detection is off by default; this preset turns it on.
func TestPresetOpenClaw(t *testing.T) {
	calls := func(s *script, n int, tool, args, out string, labels map[int]string) *script {
		repeat(n, func(i int) { s.call(labels[i+1], tool, args).result(labels[-(i+1)], false, out) })
		return s
	}
	poll := `{"action":"poll","sessionId":"sess-1"}`
	runPorted(t, "openclaw", []ported{
		{
			from: "does not flag unique tool calls",
			script: func() *script {
				s := newScript("r")
				repeat(15, func(i int) { s.exec("", "read", fmt.Sprintf(`{"path":"/file%d.txt"}`, i), false, "x") })
				return s.exec("", "read", `{"path":"/new-file.txt"}`, false, "x")
			},
		},
		{
			from: "warns on generic repeated tool+args calls (10 recorded, then the next)",
			script: func() *script {
				s := newScript("r")
				repeat(10, func(i int) { s.call("", "read", `{"path":"/same.txt"}`).result("", false, fmt.Sprint("output ", i)) })
				return s.call("11th", "read", `{"path":"/same.txt"}`)
			},
			want: map[string]string{"11th": "advise:avoid_repeat allow"},
		},
		{
			from: "blocks generic no-progress loops at critical threshold",
			script: func() *script {
				return calls(newScript("r"), 21, "read", `{"path":"/same.txt"}`, "same output", map[int]string{11: "11th", -20: "20th result", 21: "21st"})
			},
			want: map[string]string{"11th": "advise:avoid_repeat allow", "20th result": "advise:override", "21st": "reject:LOOP_DETECTED"},
		},
		{
			from: "warns for known polling no-progress loops; blocks them at critical threshold",
			script: func() *script {
				return calls(newScript("r"), 21, "process", poll, "(no new output)\n\nProcess still running.", map[int]string{-10: "10th result", -20: "20th result", 21: "21st"})
			},
			want: map[string]string{"10th result": "advise:avoid_repeat", "20th result": "advise:override", "21st": "reject:LOOP_DETECTED"},
		},
		{
			from: "does not block known polling when output progresses",
			script: func() *script {
				s := newScript("r")
				repeat(25, func(i int) { s.exec("", "process", poll, false, fmt.Sprint("line ", i)) })
				return s
			},
		},
		{
			from: "blocks any tool with global no-progress breaker at 30 (with the generic rule off)",
			mod: func(p *guard.Policy) {
				rule(p, "generic_no_progress").Disabled = true
				rule(p, "generic_repeat").Disabled = true
			},
			script: func() *script {
				return calls(newScript("r"), 31, "read", `{"path":"/same.txt"}`, "same output", map[int]string{-30: "30th result", 31: "31st"})
			},
			want: map[string]string{"30th result": "advise:override", "31st": "reject:LOOP_DETECTED"},
		},
		{
			from: "does not block a one-shot batch of distinct arguments",
			script: func() *script {
				s := newScript("r")
				repeat(31, func(i int) {
					s.exec("", "write", fmt.Sprintf(`{"path":"/tmp/file-%d.md","content":"same content"}`, i), false, "write complete")
				})
				return s
			},
		},
		{
			from: "blocks repeated completed exec calls despite volatile runtime details (the details are not on the wire)",
			script: func() *script {
				return calls(newScript("r"), 21, "exec", `{"command":"grafana-api.sh datasources"}`, "Loki\nPrometheus", map[int]string{11: "11th", -20: "20th result", 21: "21st"})
			},
			want: map[string]string{"11th": "advise:avoid_repeat allow", "20th result": "advise:override", "21st": "reject:LOOP_DETECTED"},
		},
		{
			from: "keeps changing exec output below the global no-progress breaker (warnings only)",
			script: func() *script {
				s := newScript("r")
				repeat(31, func(i int) {
					l := map[int]string{10: "11th", 20: "21st"}[i]
					s.call(l, "exec", `{"command":"date"}`).result("", false, fmt.Sprint("tick ", i))
				})
				return s
			},
			want: map[string]string{"11th": "advise:avoid_repeat allow", "21st": "advise:avoid_repeat allow"},
		},
		{
			from: "warns on ping-pong alternating patterns (9 recorded, then the 10th)",
			script: func() *script {
				s := newScript("r")
				repeat(10, func(i int) {
					l := map[int]string{9: "10th"}[i]
					if i%2 == 0 {
						s.call(l, "read", `{"path":"/a.txt"}`)
					} else {
						s.call(l, "list", `{"dir":"/workspace"}`)
					}
					s.result("", false, fmt.Sprint(i))
				})
				return s
			},
			want: map[string]string{"10th": "advise:break_cycle allow"},
		},
		{
			from: "blocks ping-pong alternating patterns at critical threshold (stable outcomes on both sides)",
			script: func() *script {
				s := newScript("r")
				repeat(21, func(i int) {
					l := map[int]string{9: "10th", 19: "20th", 20: "21st"}[i]
					if i%2 == 0 {
						s.call(l, "read", `{"path":"/a.txt"}`).result(map[int]string{18: "19th result"}[i], false, "read stable")
					} else {
						s.call(l, "list", `{"dir":"/workspace"}`).result(map[int]string{19: "20th result"}[i], false, "list stable")
					}
				})
				return s
			},
			want: map[string]string{"10th": "advise:break_cycle allow", "20th": "advise:break_cycle allow", "20th result": "advise:override", "21st": "reject:LOOP_DETECTED"},
		},
		{
			from: "does not block ping-pong at critical threshold when outcomes are progressing",
			script: func() *script {
				s := newScript("r")
				repeat(21, func(i int) {
					l := map[int]string{9: "10th", 19: "20th", 20: "21st"}[i]
					if i%2 == 0 {
						s.call(l, "read", `{"path":"/a.txt"}`).result("", false, fmt.Sprint("read ", i))
					} else {
						s.call(l, "list", `{"dir":"/workspace"}`).result("", false, fmt.Sprint("list ", i))
					}
				})
				return s
			},
			// OpenClaw warns again for the pattern at 20; guardstream also
			// publishes the generic warning the 11th read draws.
			want: map[string]string{"10th": "advise:break_cycle allow", "20th": "advise:break_cycle allow", "21st": "advise:avoid_repeat allow"},
		},
		{
			from: "does not flag ping-pong when alternation is broken",
			script: func() *script {
				return newScript("r").exec("", "read", `{"path":"/a.txt"}`, false, "a").exec("", "list", `{"dir":"/workspace"}`, false, "l").
					exec("", "read", `{"path":"/a.txt"}`, false, "a").exec("", "write", `{"path":"/tmp/out.txt"}`, false, "w").
					exec("", "list", `{"dir":"/workspace"}`, false, "l")
			},
		},
	})
}
