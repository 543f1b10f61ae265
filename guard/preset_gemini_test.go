package guard_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/guard"
)

// TestPresetGeminiCLI ports the tool-call cases of gemini-cli's
// packages/core/src/services/loopDetectionService.test.ts at commit
// 5411f113cafae26161b4969b0237b8e1e024e2c2 (last changed in acae7124bd),
// read with the client's handling in packages/core/src/core/client.ts: a
// first detection aborts the call and feeds the model back (inject_steer),
// a further one ends the turn (stop), a new prompt resets the service.
// The content-chanting and LLM-check cases have no counterpart on the wire.
func TestPresetGeminiCLI(t *testing.T) {
	same := func(s *script, n int, label func(i int) string) *script {
		repeat(n, func(i int) { s.exec(label(i), "testTool", `{"param":"value"}`, false, "ok") })
		return s
	}
	cycle := func(n int, events []string, labels map[int]string) func() *script {
		return func() *script {
			s := newScript("cycle")
			repeat(n, func(i int) {
				s.call(labels[i+1], "read_file", fmt.Sprintf(`{"file_path":%q}`, events[i%len(events)]))
				s.result("", false, "contents of "+events[i%len(events)])
			})
			return s
		}
	}
	runPorted(t, "gemini-cli", []ported{
		{
			from:   "should not detect a loop for fewer than TOOL_CALL_LOOP_THRESHOLD identical calls",
			script: func() *script { return same(newScript("r"), 4, func(int) string { return "" }) },
		},
		{
			from: "should detect a loop on the TOOL_CALL_LOOP_THRESHOLD-th identical call",
			script: func() *script {
				s := same(newScript("r"), 4, func(int) string { return "" })
				return s.call("5th", "testTool", `{"param":"value"}`)
			},
			want: map[string]string{"5th": "advise:override reject:LOOP_DETECTED"},
		},
		{
			from: "should detect a loop on subsequent identical calls; Strike Management: should increment strike count for repeated detections",
			script: func() *script {
				s := same(newScript("r"), 4, func(int) string { return "" })
				return s.call("5th", "testTool", `{"param":"value"}`).call("6th", "testTool", `{"param":"value"}`)
			},
			want: map[string]string{"5th": "advise:override reject:LOOP_DETECTED", "6th": "stop:LOOP_DETECTED"},
		},
		{
			from: "should not detect a loop for different tool calls",
			script: func() *script {
				s := newScript("r")
				repeat(3, func(int) {
					s.exec("", "testTool", `{"param":"value1"}`, false, "ok").exec("", "testTool", `{"param":"value2"}`, false, "ok")
					s.exec("", "anotherTool", `{"param":"value1"}`, false, "ok")
				})
				return s
			},
		},
		{
			from: "should not reset tool call counter for other event types",
			script: func() *script {
				s := same(newScript("r"), 4, func(int) string { return "" })
				return s.say("", "thinking").call("5th", "testTool", `{"param":"value"}`)
			},
			want: map[string]string{"5th": "advise:override reject:LOOP_DETECTED"},
		},
		{
			from: "should not detect a loop when disabled for session; should skip loop detection if disabled in config",
			mod:  func(p *guard.Policy) { rule(p, "tool_call_loop").Disabled = true },
			script: func() *script {
				return same(newScript("r"), 7, func(int) string { return "" })
			},
		},
		{
			from:   "should detect an alternating tool call loop (cycle of length 2)",
			script: cycle(15, []string{"loop_a.txt", "loop_b.txt"}, map[int]string{10: "10th", 11: "11th"}),
			want:   map[string]string{"10th": "advise:override reject:LOOP_DETECTED", "11th": "stop:LOOP_DETECTED"},
		},
		{
			from:   "should detect a cyclic tool call loop of length 3",
			script: cycle(20, []string{"loop_a.txt", "loop_b.txt", "loop_c.txt"}, map[int]string{15: "15th", 16: "16th"}),
			want:   map[string]string{"15th": "advise:override reject:LOOP_DETECTED", "16th": "stop:LOOP_DETECTED"},
		},
		{
			from:   "should detect a cyclic tool call loop of length 5",
			script: cycle(30, []string{"1", "2", "3", "4", "5"}, map[int]string{25: "25th", 26: "26th"}),
			want:   map[string]string{"25th": "advise:override reject:LOOP_DETECTED", "26th": "stop:LOOP_DETECTED"},
		},
		{
			from: "should not detect loops for non-looping alternating sequences that vary",
			script: func() *script {
				s := newScript("r")
				ab := func() {
					repeat(4, func(i int) { s.exec("", "read_file", fmt.Sprintf(`{"file_path":"loop_%c.txt"}`, 'a'+i%2), false, "x") })
				}
				ab()
				s.exec("", "read_file", `{"file_path":"loop_c.txt"}`, false, "x")
				ab()
				return s
			},
		},
		{
			from: "should allow recovery turn to proceed after clearDetection; a new prompt resets the service (client.ts: loopDetector.reset on a new prompt_id)",
			script: func() *script {
				s := same(newScript("r"), 4, func(int) string { return "" })
				s.call("5th", "testTool", `{"param":"value"}`).exec("recovered", "otherTool", `{}`, false, "ok")
				s.user("")
				return same(s, 4, func(int) string { return "" }).call("5th again", "testTool", `{"param":"value"}`)
			},
			want: map[string]string{"5th": "advise:override reject:LOOP_DETECTED", "5th again": "advise:override reject:LOOP_DETECTED"},
		},
	})
}
