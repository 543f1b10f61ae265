package auth_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

func TestEmbeddedConfig(t *testing.T) {
	g, _ := nkeys.CreateUser()
	o, _ := nkeys.CreateUser()
	gp, _ := g.PublicKey()
	op, _ := o.PublicKey()
	for _, tenant := range []string{auth.AnyTenant, "acme", "ünïcode"} {
		text, err := auth.Embedded{Guard: gp, Operator: op, AnonymousTenant: tenant}.Config()
		if err != nil {
			t.Fatal(err)
		}
		var opts server.Options
		if err := opts.ProcessConfigString(text); err != nil {
			t.Fatalf("tenant %q: the server refuses the config: %v\n%s", tenant, err, text)
		}
		if anon, how := auth.Anonymous(&opts); !anon || !strings.Contains(how, "no_auth_user") {
			t.Errorf("tenant %q: anonymous %v (%s)", tenant, anon, how)
		}
	}
	if _, err := (auth.Embedded{Guard: gp, Operator: op, AnonymousTenant: "a.b"}).Config(); err == nil {
		t.Error("a tenant with a dot was accepted")
	}
}

func TestPermissions(t *testing.T) {
	p, err := auth.For(auth.RoleAgent, "acme")
	if err != nil {
		t.Fatal(err)
	}
	want := "pub agent.acme.*.run agent.acme.*.step agent.acme.*.call agent.acme.*.result agent.acme.*.hb agent.acme.*.round agent.acme.*.turn agent.acme.*.compact " +
		"guard.out.acme.*.* guard.api.acme.* sub guard.ctl.acme.> _INBOX.acme.>"
	if got := "pub " + strings.Join(p.PubAllow, " ") + " sub " + strings.Join(p.SubAllow, " "); got != want || len(p.PubDeny)+len(p.SubDeny) != 0 {
		t.Errorf("agent acme: %s; want %s", got, want)
	}
	if p, _ := auth.For(auth.RoleGuard, ""); p != nil {
		t.Errorf("guard-consumer is restricted: %+v", p)
	}
	if p, _ := auth.For(auth.RoleDashboard, ""); len(p.PubAllow) != 0 || len(p.PubDeny) != 1 || p.PubDeny[0] != ">" {
		t.Errorf("a dashboard may publish: %+v", p)
	}
	op, _ := auth.For(auth.RoleOperator, "")
	for _, subject := range []string{"agent.acme.r1.resume", "agent.acme.r1.call", "agent.acme.r1.timer", "guard.ctl.acme.r1.verdict"} {
		denied := false
		for _, d := range op.PubDeny {
			denied = denied || server.SubjectMatchesFilter(subject, d)
		}
		if want := !strings.HasSuffix(subject, ".resume"); denied != want {
			t.Errorf("operator publishing %s: denied %v, want %v", subject, denied, want)
		}
	}
	if _, err := auth.For("admin", ""); err == nil {
		t.Error("an unknown role was accepted")
	}
}

func TestCheckListen(t *testing.T) {
	anon := &server.Options{Host: "0.0.0.0", Port: 4222, NoAuthUser: "agent", Users: []*server.User{{Username: "agent"}}}
	if err := auth.CheckListen(anon, false); !errors.Is(err, auth.ErrOpenPort) {
		t.Errorf("anonymous on every interface: %v, want ErrOpenPort", err)
	} else {
		t.Log(err)
	}
	if err := auth.CheckListen(anon, true); err != nil {
		t.Errorf("with the override: %v", err)
	}
	if err := auth.CheckListen(&server.Options{Host: "10.0.0.5"}, false); !errors.Is(err, auth.ErrOpenPort) {
		t.Errorf("no authorization at all on 10.0.0.5: %v", err)
	}
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		o := *anon
		o.Host = host
		if err := auth.CheckListen(&o, false); err != nil {
			t.Errorf("anonymous on %s: %v", host, err)
		}
	}
	if err := auth.CheckListen(&server.Options{Host: "0.0.0.0", Users: []*server.User{{Username: "u", Password: "p"}}}, false); err != nil {
		t.Errorf("users with passwords: %v", err)
	}
}

func TestClientValidate(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []auth.Client{
		{Creds: filepath.Join(dir, "missing.creds")},
		{Creds: junk},
		{NKey: junk},
		{TLSCert: junk},
		{TLSKey: junk},
		{TLSCert: junk, TLSKey: junk},
		{TLSCA: junk},
	} {
		err := c.Validate()
		if err == nil {
			t.Errorf("%+v: accepted", c)
			continue
		}
		t.Logf("%+v: %v", c, err)
	}
	if err := (auth.Client{}).Validate(); err != nil {
		t.Errorf("the zero Client: %v", err)
	}
}

// An operator-mode deployment: identities connect with what Issue gives
// them, stop when revoked, and survive a rotation until it is retired.
func TestDeployment(t *testing.T) {
	dir := t.TempDir()
	if err := auth.Init(dir); err != nil {
		t.Fatal(err)
	}
	if err := auth.Init(dir); !errors.Is(err, auth.ErrExists) {
		t.Errorf("Init over a deployment: %v, want ErrExists", err)
	}
	for _, name := range []string{"{{name()}}", "*", "a.b", ""} {
		if _, err := auth.Issue(dir, auth.RoleAgent, name, 0); err == nil {
			t.Errorf("an agent named %q was issued", name)
		}
	}
	conf := filepath.Join(dir, "server.conf")
	if err := os.WriteFile(conf, []byte("host: 127.0.0.1\nport: -1\ninclude auth.conf\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, conf)
	creds := func(role auth.Role, name string) string {
		b, err := auth.Issue(dir, role, name, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name+".creds")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	connects := func(path string) error {
		nc, err := nats.Connect(s.ClientURL(), nats.UserCredentials(path), nats.NoReconnect())
		if err == nil {
			nc.Close()
		}
		return err
	}
	reload := func() {
		t.Helper()
		if err := s.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	acme, bob := creds(auth.RoleAgent, "acme"), creds(auth.RoleAgent, "bob")
	for _, p := range []string{acme, bob, filepath.Join(dir, "creds", "guard-consumer.creds"), filepath.Join(dir, "creds", "operator.creds")} {
		if err := connects(p); err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
	}
	if _, err := nats.Connect(s.ClientURL(), nats.NoReconnect()); err == nil {
		t.Error("a connection without credentials got in")
	}

	if err := auth.Revoke(dir, acme); err != nil {
		t.Fatal(err)
	}
	reload()
	if err := connects(acme); err == nil {
		t.Error("revoked credentials still connect")
	}
	if err := connects(bob); err != nil {
		t.Errorf("revoking acme stopped bob: %v", err)
	}

	if err := auth.Rotate(dir, auth.RoleAgent); err != nil {
		t.Fatal(err)
	}
	carol := creds(auth.RoleAgent, "carol")
	reload()
	if connects(bob) != nil || connects(carol) != nil {
		t.Error("after rotate, old or new credentials do not connect")
	}
	if err := auth.Retire(dir, auth.RoleAgent); err != nil {
		t.Fatal(err)
	}
	reload()
	if err := connects(bob); err == nil {
		t.Error("credentials of a retired key still connect")
	}
	if err := connects(carol); err != nil {
		t.Errorf("credentials of the current key: %v", err)
	}
	if err := connects(filepath.Join(dir, "creds", "guard-consumer.creds")); err != nil {
		t.Errorf("retiring the agents' key stopped guard-consumer: %v", err)
	}
}

// startServer starts a server from the config file conf; it is shut down
// when the test ends.
func startServer(t *testing.T, conf string) *server.Server {
	t.Helper()
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	opts.NoSigs, opts.NoLog = true, true
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Cleanup(s.Shutdown)
	return s
}
