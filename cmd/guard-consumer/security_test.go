package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// guard-consumer refuses an inconsistent security configuration before
// it starts anything, and says what to change.
func TestRefusesInsecureOrInconsistentSecurity(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	anonConf := filepath.Join(dir, "open.conf")
	if err := os.WriteFile(anonConf, []byte("listen: 0.0.0.0:4222\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	deployment := filepath.Join(dir, "deploy")
	var out, errOut bytes.Buffer
	if code := run([]string{"creds", "init", "-dir", deployment}, &out, &errOut); code != 0 {
		t.Fatalf("creds init: exit %d: %s", code, errOut.String())
	}
	opConf := filepath.Join(deployment, "server.conf")
	if err := os.WriteFile(opConf, []byte("listen: 127.0.0.1:-1\ninclude auth.conf\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-listen", "0.0.0.0:4222"}, "-insecure-anonymous"},
		{[]string{"-listen", "10.1.2.3:4222"}, "Listen on 127.0.0.1"},
		{[]string{"-server-config", anonConf}, "no authorization at all"},
		{[]string{"-server-config", opConf}, "give -creds"},
		{[]string{"-server-config", opConf, "-nats-url", "nats://127.0.0.1:4222"}, "give one of them"},
		{[]string{"-creds", filepath.Join(dir, "missing.creds")}, "on the embedded default guard-consumer connects in process"},
		{[]string{"-nats-url", "nats://127.0.0.1:4222", "-creds", filepath.Join(dir, "missing.creds")}, "issue one with 'guard-consumer creds issue'"},
		{[]string{"-nats-url", "nats://127.0.0.1:4222", "-tls-cert", junk}, "-tls-cert and -tls-key go together"},
		{[]string{"-nats-url", "nats://127.0.0.1:4222", "-tls-ca", junk}, "no PEM certificate"},
		{[]string{"-anonymous-tenant", "a.b"}, "-anonymous-tenant"},
	} {
		errOut.Reset()
		args := tc.args
		if !slices.Contains(args, "-nats-url") {
			args = append([]string{"-data-dir", t.TempDir()}, args...)
		}
		if code := run(args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.args, code, errOut.String(), tc.want)
			continue
		}
		t.Logf("%v:\n  %s", tc.args, strings.SplitN(errOut.String(), "\n", 2)[0])
	}
}

func TestCredsCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deploy")
	var out, errOut bytes.Buffer
	if code := run([]string{"creds", "init", "-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	file := filepath.Join(t.TempDir(), "acme.creds")
	if code := run([]string{"creds", "issue", "-dir", dir, "-tenant", "acme", "-o", file}, &out, &errOut); code != 0 {
		t.Fatalf("issue: exit %d: %s", code, errOut.String())
	}
	if b, err := os.ReadFile(file); err != nil || !bytes.Contains(b, []byte("BEGIN NATS USER JWT")) {
		t.Fatalf("issue wrote %q, %v", b, err)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("credentials file mode %v, want 0600", st.Mode().Perm())
	}
	for _, args := range [][]string{
		{"creds", "issue", "-dir", dir},
		{"creds", "issue", "-dir", dir, "-role", "root", "-name", "x"},
		{"creds", "revoke", "-dir", dir},
		{"creds", "wipe", "-dir", dir},
	} {
		errOut.Reset()
		if code := run(args, &out, &errOut); code == 0 {
			t.Errorf("%v: exit 0", args)
		} else {
			t.Logf("%v: %s", args, strings.TrimSpace(errOut.String()))
		}
	}
	for _, args := range [][]string{
		{"creds", "revoke", "-dir", dir, "-creds", file},
		{"creds", "rotate", "-dir", dir, "-role", "dashboard"},
		{"creds", "retire", "-dir", dir, "-role", "dashboard"},
		{"creds", "issue", "-dir", dir, "-role", "dashboard", "-name", "wallboard"},
	} {
		if code := run(args, &out, &errOut); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut.String())
		}
	}
}
