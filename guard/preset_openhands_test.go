package guard_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors/loop"
)

// TestPresetOpenHands ports OpenHands' tests/unit/controller/test_is_stuck.py
// at commit d6fab190bfb55f07cc380993b45ec4f781706a92 (last changed in
// 17e32af6). OpenHands' events map onto the wire as: CmdRunAction → a call
// of execute_bash with its command; CmdOutputObservation → its result, with
// the exit code; ErrorObservation → a failed result; FileReadAction → a
// call of read_file; the agent's MessageAction → a step with a text
// digest; the user's MessageAction → a turn; AgentCondensationObservation
// → a compaction. is_stuck runs before each agent step, so a detection
// lands on the event that completed the pattern. The IPython syntax-error
// cases match Jupyter's output format and are left out.
func TestPresetOpenHands(t *testing.T) {
	cmd := func(s *script, l, command, out string) *script {
		return s.exec(l, "execute_bash", fmt.Sprintf(`{"command":%q}`, command), false, out)
	}
	read := func(s *script, l, path, out string) *script {
		return s.exec(l, "read_file", fmt.Sprintf(`{"path":%q}`, path), false, out)
	}
	interactive := func(p *guard.Policy) {
		for i := range p.Loop.Rules {
			p.Loop.Rules[i].ResetOn = append(p.Loop.Rules[i].ResetOn, loop.OnTurn)
		}
	}
	runPorted(t, "openhands", []ported{
		{
			from: "test_history_too_short",
			script: func() *script {
				return cmd(newScript("r").user(""), "", "ls", "file1.txt\nfile2.txt")
			},
		},
		{
			from: "test_is_stuck_repeating_action_observation: a user message between does not break it (headless)",
			script: func() *script {
				s := newScript("r").say("", "Hello")
				cmd(cmd(s, "", "ls", ""), "", "ls", "").user("")
				return cmd(cmd(s, "3rd", "ls", ""), "4th", "ls", "")
			},
			want: map[string]string{"3rd": "", "4th": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_is_stuck_repeating_action_observation: a shell result compares by command and exit code, not its output",
			script: func() *script {
				s := newScript("r")
				repeat(4, func(i int) { cmd(s, fmt.Sprint(i+1), "ls", fmt.Sprintf("pid %d", 100+i)) })
				return s
			},
			want: map[string]string{"4": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_is_stuck_repeating_action_error: the same action thrice, each an error (not necessarily the same)",
			script: func() *script {
				s := newScript("r").say("", "Hello")
				s.exec("", "execute_bash", `{"command":"invalid_command"}`, true, "Command not found")
				s.exec("", "execute_bash", `{"command":"invalid_command"}`, true, "Command still not found or another error").user("")
				return s.exec("3rd", "execute_bash", `{"command":"invalid_command"}`, true, "Different error")
			},
			want: map[string]string{"3rd": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_interactive_mode_resets_after_user_message: headless, stuck after four",
			script: func() *script {
				s := newScript("r")
				repeat(4, func(i int) { cmd(s, fmt.Sprint(i+1), "ls", "") })
				return s
			},
			want: map[string]string{"4": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_interactive_mode_resets_after_user_message: interactive, a user message starts over",
			mod:  interactive,
			script: func() *script {
				s := newScript("r")
				repeat(3, func(int) { cmd(s, "", "ls", "") })
				s.user("")
				repeat(4, func(i int) { cmd(s, fmt.Sprint("after ", i+1), "ls", "") })
				return s
			},
			want: map[string]string{"after 3": "", "after 4": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_is_stuck_repeating_action_observation_pattern",
			script: func() *script {
				s := newScript("r").user("")
				pair := func(l string) { read(cmd(s, "", "ls", "file1.txt\nfile2.txt"), l, "file1.txt", "File content") }
				pair("")
				pair("")
				s.user("")
				pair("6th")
				return s
			},
			want: map[string]string{"6th": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_is_stuck_not_stuck",
			script: func() *script {
				s := newScript("r").say("", "Hello")
				read(cmd(s, "", "ls", "file1.txt\nfile2.txt"), "", "file1.txt", "File content")
				read(cmd(s, "", "pwd", "/home/user"), "", "file2.txt", "Another file content")
				s.user("")
				return read(cmd(s, "", "pwd", "/home/user"), "", "file2.txt", "Another file content")
			},
		},
		{
			from: "test_is_stuck_monologue: the same message thrice with no observation between, an action without its result between",
			script: func() *script {
				s := newScript("r").user("").say("", "Hi there!").user("")
				s.call("", "execute_bash", `{"command":"echo 42"}`)
				return s.say("", "I'm doing well, thanks for asking.").say("", "I'm doing well, thanks for asking.").say("3rd", "I'm doing well, thanks for asking.")
			},
			want: map[string]string{"3rd": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_is_stuck_monologue: an observation between the messages",
			script: func() *script {
				s := newScript("r").say("", "I'm doing well, thanks for asking.")
				s.exec("", "execute_bash", `{"command":"storybook"}`, false, "OK, I was stuck, but no more.")
				return s.say("", "I'm doing well, thanks for asking.").say("", "I'm doing well, thanks for asking.")
			},
		},
		{
			from: "test_is_stuck_context_window_error_loop",
			script: func() *script {
				s := newScript("r").user("")
				repeat(10, func(i int) { s.compact(fmt.Sprint(i + 1)) })
				return s
			},
			want: map[string]string{"9": "", "10": "stop:LOOP_DETECTED"},
		},
		{
			from: "test_is_not_stuck_context_window_error_with_other_events",
			script: func() *script {
				s := newScript("r").user("")
				repeat(10, func(i int) {
					s.compact("")
					if i < 9 {
						cmd(s, "", fmt.Sprintf("ls %d", i), "file1.txt\nfile2.txt")
						if i%2 == 0 {
							read(s, "", fmt.Sprintf("file%d.txt", i), fmt.Sprintf("File content %d", i))
						}
					}
				})
				return s
			},
		},
		{
			from: "test_is_not_stuck_context_window_error_less_than_ten",
			script: func() *script {
				s := newScript("r").user("")
				repeat(9, func(int) { s.compact("") })
				return s
			},
		},
		{
			from: "test_is_stuck_context_window_error_with_user_messages (headless)",
			script: func() *script {
				s := newScript("r").user("")
				repeat(10, func(i int) {
					s.compact(fmt.Sprint(i + 1))
					if i < 9 {
						s.user("")
					}
				})
				return s
			},
			want: map[string]string{"10": "stop:LOOP_DETECTED"},
		},
	})
}
