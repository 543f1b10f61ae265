package auth_test

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/nats-io/nats.go"
)

// Setup makes a deployment whose server takes TLS connections with the
// credentials it hands out, each in its own directory, and no others;
// running it again changes no key.
func TestSetup(t *testing.T) {
	root := t.TempDir()
	out := func(name string) string { return filepath.Join(root, name) }
	s := auth.Setup{Dir: out("deployment"), Hosts: []string{"nats-1", "10.0.0.7"}, Tenant: "demo",
		Server: out("server"), Guard: out("guard"), Agent: out("agent"), Operator: out("operator")}
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string][]string{
		"server":   {"auth.conf", "ca.pem", "server-cert.pem", "server-key.pem"},
		"guard":    {"ca.pem", "guard-consumer.creds"},
		"agent":    {"ca.pem", "demo.creds"},
		"operator": {"ca.pem", "operator.creds"},
	} {
		entries, err := os.ReadDir(out(dir))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
			info, _ := e.Info()
			secret := strings.HasSuffix(e.Name(), ".creds") || strings.HasSuffix(e.Name(), "-key.pem")
			if perm := info.Mode().Perm(); secret && perm != 0o600 {
				t.Errorf("%s/%s is readable by others (%v)", dir, e.Name(), perm)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", dir, got, want)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out("server"), "server-cert.pem"))
	block, _ := pem.Decode(b)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cert.DNSNames, cert.IPAddresses) != "[localhost nats-1] [127.0.0.1 10.0.0.7]" {
		t.Errorf("the server certificate names %v %v", cert.DNSNames, cert.IPAddresses)
	}

	before := snapshot(t, s.Dir)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, s.Dir); !bytes.Equal(before, after) {
		t.Error("running Setup again changed the deployment")
	}

	conf := filepath.Join(out("server"), "server.conf")
	text := fmt.Sprintf("host: 127.0.0.1\nport: -1\ntls {\n  cert_file: %q\n  key_file: %q\n}\ninclude auth.conf\n",
		filepath.Join(out("server"), "server-cert.pem"), filepath.Join(out("server"), "server-key.pem"))
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, conf)
	connect := func(c auth.Client) error {
		o, err := c.Options()
		if err != nil {
			return err
		}
		nc, err := nats.Connect(srv.ClientURL(), append(o, nats.NoReconnect())...)
		if err == nil {
			nc.Close()
		}
		return err
	}
	for _, c := range []auth.Client{
		{Creds: filepath.Join(out("guard"), "guard-consumer.creds"), TLSCA: filepath.Join(out("guard"), "ca.pem")},
		{Creds: filepath.Join(out("agent"), "demo.creds"), TLSCA: filepath.Join(out("agent"), "ca.pem")},
		{Creds: filepath.Join(out("operator"), "operator.creds"), TLSCA: filepath.Join(out("operator"), "ca.pem")},
	} {
		if err := connect(c); err != nil {
			t.Errorf("%s: %v", filepath.Base(c.Creds), err)
		}
	}
	if err := connect(auth.Client{TLSCA: filepath.Join(out("agent"), "ca.pem")}); err == nil {
		t.Error("a connection without credentials got in")
	}
	if err := connect(auth.Client{Creds: filepath.Join(out("agent"), "demo.creds")}); err == nil {
		t.Error("a connection that does not trust the deployment's CA got in")
	}
}

// snapshot returns the contents of every file under dir.
func snapshot(t *testing.T, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		fmt.Fprintf(&b, "%s\n%s\n", path, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
