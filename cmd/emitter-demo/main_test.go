package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs the demo as a user would, in-process, and checks that each
// agent met the guard it was written to meet.
func TestDemo(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^looper .*\n(.*\n)*  c3 .*→ allow\n\s+advice avoid_repeat`),
		regexp.MustCompile(`(?m)^  c5 +read_file .*→ stop LOOP_DETECTED`),
		regexp.MustCompile(`advice break_cycle`),
		regexp.MustCompile(`stopped by the loop guard: TOO_MANY_MISTAKES`),
		regexp.MustCompile(`advice read_errors`),
		regexp.MustCompile(`round 1: 8 calls allowed, 2 deferred\n.*c1 returned, c9 released → allow\n.*c2 returned, c10 released → allow`),
		regexp.MustCompile(`c27 +fetch_page \(call 17 of the round\) → stop LIMIT_EXCEEDED`),
		regexp.MustCompile(`c1 +read_file +\{"file_path".*→ repair \{"limit":40,"path":"main.go"\}`),
		regexp.MustCompile(`reject INVALID_ARGS: .*expected string at /path`),
		regexp.MustCompile(`\.git/config.*→ reject POLICY_VIOLATION \(protected_path\)`),
		regexp.MustCompile(`rm -rf / --no-preserve-root"\} +→ reject POLICY_VIOLATION \(shell\)`),
		regexp.MustCompile(`rm -rf ./build"\} +→ allow`),
		regexp.MustCompile(`advice test_edit`),
		regexp.MustCompile(`the model sees 500 lines, has_more=true, 19500 remaining`),
		regexp.MustCompile(`page 2 from the object store.*\n +logs/app.log:501:`),
		regexp.MustCompile(`settled once, in call order: \[q1 q2 q3 q4\]`),
		regexp.MustCompile(`(?m)^silent .*\n(.*\n)*  cancelled by the guard .* after its last heartbeat\n  stopped by the lease guard: LEASE_EXPIRED`),
	} {
		if !want.MatchString(got) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	careful := got[strings.Index(got, "careful"):strings.Index(got, "looper")]
	if strings.Contains(careful, "advice") || strings.Count(careful, "→ allow") != 5 {
		t.Errorf("the careful agent should see five allows and no advice:\n%s", careful)
	}
}

func TestDemoFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-nope"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "emitter-demo -h") {
		t.Errorf("bad flag: exit %d, stderr %q; want 2 and a pointer to -h", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"-nats-url", "nats://127.0.0.1:1"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "is guard-consumer running") {
		t.Errorf("unreachable server: exit %d, stderr %q", code, errOut.String())
	}
}
