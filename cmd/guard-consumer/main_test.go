package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/nats-io/nats.go"
)

func TestFlagMistakes(t *testing.T) {
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"loop":{"repeat_limt":5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-partitions", "0"}, "partitions is 0"},
		{[]string{"-listen", "4222"}, "want host:port"},
		{[]string{"-listen", "127.0.0.1:99999"}, "port must be a number"},
		{[]string{"-log-level", "loud"}, "want debug, info, warn or error"},
		{[]string{"-log-format", "xml"}, "want text or json"},
		{[]string{"-replicas", "2"}, "want 1, 3 or 5"},
		{[]string{"-policy", "/does/not/exist.json"}, "reading policy"},
		{[]string{"-policy", policy}, `unknown field "repeat_limt"`},
		{[]string{"-frobnicate"}, "flag provided but not defined"},
		{[]string{"serve"}, `unexpected argument "serve"`},
		{[]string{"-sync", "never"}, "want always, or a positive duration"},
		{[]string{"-profile", "prod"}, "want dev or production"},
		{[]string{"-nats-url", "nats://127.0.0.1:4222", "-sync", "always"}, "-sync configures the embedded server"},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.says) || !strings.Contains(errOut.String(), "guard-consumer -h") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q and a pointer to -h", tc.args, code, errOut.String(), tc.says)
		}
	}
}

func TestHelpExplainsEveryFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-h"}, &out, &errOut); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, flag := range []string{"nats-url", "listen", "data-dir", "policy", "print-policy", "partitions", "replicas", "log-level", "log-format", "batch", "ack-wait", "max-event-bytes", "checkpoint-interval", "output-max-age", "event-max-age", "duplicates", "sync", "http", "profile", "nats-monitor",
		"event-max-bytes", "max-msgs-per-subject", "control-max-bytes", "dead-letter-max-bytes", "timer-max-bytes", "runs-max-bytes", "output-max-bytes"} {
		if !strings.Contains(errOut.String(), "-"+flag) {
			t.Errorf("-h does not explain -%s", flag)
		}
	}
}

func TestPrintPolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(`{"loop":{"action":"inject_steer"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-policy", path, "-print-policy"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got, err := guard.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := guard.DefaultPolicy()
	want.Loop.Action = "inject_steer"
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("printed policy %s, want the defaults with the file's override: %s", g, w)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServesAndShutsDownOnSIGTERM starts guard-consumer with its embedded
// server, as the README's first command does, checks that it guards a call,
// and stops it with SIGTERM.
func TestServesAndShutsDownOnSIGTERM(t *testing.T) {
	pr, pw := io.Pipe()
	exit := make(chan int, 1)
	dataDir := t.TempDir()
	go func() {
		exit <- run([]string{"-listen", "127.0.0.1:-1", "-data-dir", dataDir, "-partitions", "2", "-http", "127.0.0.1:0"}, io.Discard, pw)
		pw.Close()
	}()
	urlRe := regexp.MustCompile(`guard-consumer running.* nats=(nats://\S+)`)
	httpRe := regexp.MustCompile(`serving /livez.* http=http://(\S+)`)
	lines := bufio.NewScanner(pr)
	var url, httpAddr string
	for url == "" && lines.Scan() {
		if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
		if m := httpRe.FindStringSubmatch(lines.Text()); m != nil {
			httpAddr = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if url == "" {
		t.Fatal("guard-consumer never said it was running")
	}

	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := client.New(nc, "acme", client.WithVerdictTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := c.Start(ctx, "cli", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.Call(ctx, client.Call{Tool: "ls", Args: `{}`})
	if err != nil || v.Kind != event.Allow {
		t.Fatalf("call: %s, %v; want allow", v.Kind, err)
	}
	// An output over the inline limit, then the operator's two ways to it.
	full := strings.Repeat("drwxr-xr-x  some/dir\n", 5000)
	if err := r.Result(ctx, client.Result{Call: v.Call, Out: full}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Output(ctx, v.Call); err != nil {
		t.Fatal(err)
	}
	r.Close()

	file := filepath.Join(t.TempDir(), "c1.out")
	var out, errOut bytes.Buffer
	if code := run([]string{"output", "-nats-url", url, "-data-dir", dataDir, "-tenant", "acme", "-run", "cli", "-call", v.Call, "-o", file}, &out, &errOut); code != 0 {
		t.Fatalf("output: exit %d: %s", code, errOut.String())
	}
	if got, _ := os.ReadFile(file); string(got) != full {
		t.Errorf("output fetched %d bytes, want the %d the tool produced", len(got), len(full))
	}
	if code := run([]string{"output", "-nats-url", url, "-data-dir", dataDir, "-tenant", "acme", "-run", "cli", "-call", "c99"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "no stored output for call c99") {
		t.Errorf("unknown call: exit %d, %q", code, errOut.String())
	}
	// The admin API answers the operator, whose key guard-consumer keeps
	// in its data directory, and not a connection without credentials.
	req := []byte(`{"tenant":"acme","run":"cli","call":"c1","offset":10,"max_lines":5}`)
	if _, err := nc.Request(admin.OutputSubject, req, time.Second); err == nil {
		t.Error("the admin API answered a connection without credentials")
	}
	key, err := nats.NkeyOptionFromSeed(filepath.Join(dataDir, "operator.nk"))
	if err != nil {
		t.Fatal(err)
	}
	op, err := nats.Connect(url, key)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	reply, err := op.Request(admin.OutputSubject, req, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var page admin.OutputReply
	if err := json.Unmarshal(reply.Data, &page); err != nil || page.View.Trunc.Offset != 10 || page.View.Trunc.LinesShown != 5 || page.Ref.Size != int64(len(full)) {
		t.Errorf("admin output page: %s (%v)", reply.Data, err)
	}

	// The container health check: ready once the partitions have recovered.
	var readyOut bytes.Buffer
	deadline := time.Now().Add(10 * time.Second)
	for run([]string{"ready", "-http", httpAddr}, &readyOut, io.Discard) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("guard-consumer ready -http %s: never ready: %s", httpAddr, readyOut.String())
		}
		readyOut.Reset()
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(readyOut.String(), "ready") {
		t.Errorf("guard-consumer ready printed %q", readyOut.String())
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != 0 {
			t.Errorf("exit %d after SIGTERM, want 0", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("guard-consumer did not stop within 20s of SIGTERM")
	}
}
