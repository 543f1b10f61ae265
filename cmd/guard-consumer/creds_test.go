package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// creds setup writes each process's files in its own directory, and can
// run again.
func TestCredsSetup(t *testing.T) {
	root := t.TempDir()
	args := []string{"creds", "setup", "-dir", filepath.Join(root, "d"), "-hosts", "nats-1,nats-2", "-tenant", "demo",
		"-server", filepath.Join(root, "nats"), "-guard", filepath.Join(root, "guard"), "-agent", filepath.Join(root, "agent")}
	for range 2 {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if !strings.Contains(out.String(), "agent demo in "+filepath.Join(root, "agent")) {
			t.Errorf("stdout %q does not say where the agent's files are", out.String())
		}
	}
	for _, f := range []string{"nats/auth.conf", "nats/server-key.pem", "guard/guard-consumer.creds", "agent/demo.creds", "agent/ca.pem"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Error(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"creds", "setup", "-hosts", "nats-1"}, 2, "-dir is required"},
		{[]string{"creds", "setup", "-dir", filepath.Join(root, "e"), "-agent", filepath.Join(root, "a2")}, 1, "need a tenant"},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &out, &errOut); code != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut.String(), tc.code, tc.want)
		}
	}
}
