package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/eval"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/nats-io/nkeys"
)

const sample = "../../internal/eval/testdata/sample.jsonl"

func TestEvaluate(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-inject", sample}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	t.Logf("\n%s", out.String())
	for _, want := range []string{"6 runs: resolved 2, unresolved 4", "stop LOOP_DETECTED", "fault (injected)", "false_success"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report has no %q", want)
		}
	}
	if !strings.Contains(errs.String(), "guard-eval: 6 runs, ") {
		t.Errorf("no timing on stderr: %q", errs.String())
	}
}

func TestJSONAndEvents(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-json", "-q", "-one-turn", "-faults", "repeat,destructive", sample}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 6 || len(rep.Recall) != 2 || errs.Len() != 0 {
		t.Errorf("runs %d, recall %+v, stderr %q", rep.Runs, rep.Recall, errs.String())
	}
	out.Reset()
	if code := run([]string{"events", sample}, &out, &errs); code != 0 {
		t.Fatalf("events: exit %d: %s", code, errs.String())
	}
	if lines := strings.Count(out.String(), "\n"); lines < 50 || !strings.HasPrefix(out.String(), `{"v":1,"k":1,"tn":"eval","run":"sample/fix-and-verify"`) {
		t.Errorf("events: %d lines, starting %.80s", lines, out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"-faults", "nonsense", sample}, {"-examples", "-1", sample}, {"export", "extra"}, {"-tenant", "a.b", sample}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errs.String())
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"no-such-file.jsonl"}, &out, &errs); code != 1 || !strings.Contains(errs.String(), "no-such-file.jsonl") {
		t.Errorf("a missing file: exit %d, %q", code, errs.String())
	}
}

// TestExportAuthenticates exports from a server that admits only one
// nkey: with -nkey it connects, without it is refused, and a -creds file
// that is not there is a usage error that says so.
func TestExportAuthenticates(t *testing.T) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	seed, _ := kp.Seed()
	seedFile := filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := embedded.Start(embedded.Options{Host: "127.0.0.1", Port: -1, StoreDir: t.TempDir(),
		Auth: fmt.Sprintf("authorization { users: [ {nkey: %q} ] }", pub)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	_, js := natstest.Connect(t, s, auth.KeyOption(kp))
	natstest.Provision(t, js, nil)

	var out, errs bytes.Buffer
	if code := run([]string{"export", "-nats-url", s.ClientURL(), "-nkey", seedFile, "-timeout", "10s"}, &out, &errs); code != 0 {
		t.Fatalf("with -nkey: exit %d: %s", code, errs.String())
	}
	if !strings.Contains(errs.String(), "exported 0 events") {
		t.Errorf("with -nkey: %q", errs.String())
	}
	errs.Reset()
	if code := run([]string{"export", "-nats-url", s.ClientURL(), "-timeout", "10s"}, &out, &errs); code != 1 || !strings.Contains(strings.ToLower(errs.String()), "authorization") {
		t.Errorf("without credentials: exit %d, %q", code, errs.String())
	}
	errs.Reset()
	missing := filepath.Join(t.TempDir(), "missing.creds")
	if code := run([]string{"export", "-nats-url", s.ClientURL(), "-creds", missing}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-creds "+missing) {
		t.Errorf("a missing -creds file: exit %d, %q", code, errs.String())
	}
}
