package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/service"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
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
		regexp.MustCompile(`c43 +fetch_page \(call 33 of the round\) → stop LIMIT_EXCEEDED`),
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

// TestDemoWithCredentials runs the demo as the shipped cluster does: an
// agent of tenant demo with its own credentials, over TLS, against a
// server that lets nobody in without credentials.
func TestDemoWithCredentials(t *testing.T) {
	root := t.TempDir()
	setup := auth.Setup{Dir: filepath.Join(root, "deployment"), Tenant: "demo",
		Server: filepath.Join(root, "nats"), Guard: filepath.Join(root, "guard"), Agent: filepath.Join(root, "agent")}
	if err := setup.Run(); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(root, "store")
	conf := filepath.Join(setup.Server, "nats.conf")
	text := fmt.Sprintf("listen: 127.0.0.1:-1\ntls {\n  cert_file: %q\n  key_file: %q\n}\njetstream { store_dir: %q }\ninclude auth.conf\n",
		filepath.Join(setup.Server, auth.ServerCertFile), filepath.Join(setup.Server, auth.ServerKeyFile), store)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, oc := streams.DefaultConfig(), objectstore.DefaultConfig()
	sc.Partitions, sc.Memory, oc.Memory = 2, true, true
	svc, err := service.Start(context.Background(), service.Config{
		Embedded: embedded.Options{Name: "demo", StoreDir: store, ConfigFile: conf},
		Streams:  sc, Outputs: oc, Runner: runner.DefaultConfig(sc.Partitions), Policy: guard.DefaultPolicy(),
		Security: service.Security{Client: auth.Client{Creds: filepath.Join(setup.Guard, auth.GuardCreds)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	creds, ca := filepath.Join(setup.Agent, "demo.creds"), filepath.Join(setup.Agent, auth.CAFile)

	var out, errOut bytes.Buffer
	if code := run([]string{"-nats-url", svc.URL(), "-tls-ca", ca}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "Authorization Violation") {
		t.Errorf("without credentials: exit %d, %q; want 1 and an authorization violation", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"-nats-url", svc.URL(), "-creds", creds, "-tls-ca", ca}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"stopped by the loop guard: LOOP_DETECTED", "reject POLICY_VIOLATION", "page 2 from the object store", "stopped by the lease guard: LEASE_EXPIRED"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
