package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardstream/guardstream/internal/auth"
)

// credsCmd implements `guard-consumer creds`: it makes an operator-mode
// deployment and issues, revokes and rotates its credentials.
func credsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guard-consumer creds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		dir    = fs.String("dir", "", "deployment directory: keys, JWTs, auth.conf (required)")
		role   = fs.String("role", string(auth.RoleAgent), "issue, rotate, retire: role of the identity: agent, dashboard, operator or guard")
		tenant = fs.String("tenant", "", "issue -role agent, setup -agent: the tenant the agent acts for")
		name   = fs.String("name", "", "issue, other roles: a name for the identity, shown in the server's monitoring")
		ttl    = fs.Duration("ttl", 90*24*time.Hour, "issue: how long the credentials are valid; 0 for ever")
		out    = fs.String("o", "", "issue: write the credentials to this file (mode 0600) instead of standard output")
		creds  = fs.String("creds", "", "revoke: the credentials file of the identity to revoke")
		hosts  = fs.String("hosts", "", "setup: comma-separated names and addresses of the NATS servers, for their TLS certificate")
		setup  auth.Setup
	)
	fs.StringVar(&setup.Server, "server", "", "setup: directory to write a NATS server's files to (auth.conf, TLS certificate and key, CA)")
	fs.StringVar(&setup.Guard, "guard", "", "setup: directory to write guard-consumer's credentials and the CA to")
	fs.StringVar(&setup.Agent, "agent", "", "setup: directory to write the credentials of an agent of -tenant and the CA to")
	fs.StringVar(&setup.Operator, "operator", "", "setup: directory to write an operator's credentials and the CA to")
	fs.Usage = func() {
		fmt.Fprint(stderr, `guard-consumer creds manages the credentials of an operator-mode deployment
(docs/security.md).

Usage:
  guard-consumer creds init   -dir D                      new operator, accounts, signing keys,
                                                          D/auth.conf and D/creds/{guard-consumer,operator}.creds
  guard-consumer creds setup  -dir D -hosts H1,H2 [-tenant T] [-server S] [-guard G] [-agent A] [-operator O]
                                                          init D unless done, a CA and server certificate for
                                                          the hosts in D/tls unless there, and each process's
                                                          files in its own directory (deploy/security/README.md)
  guard-consumer creds issue  -dir D -tenant T [-o F]     credentials of an agent of tenant T
  guard-consumer creds issue  -dir D -role R -name N      credentials of a dashboard, operator or guard-consumer
  guard-consumer creds revoke -dir D -creds F             revoke the identity of credentials file F
  guard-consumer creds rotate -dir D -role R              give role R a new signing key; the old one stays valid
  guard-consumer creds retire -dir D -role R              remove role R's old signing keys (their identities stop working)

Include D/auth.conf in the servers' configuration; reload them after revoke,
rotate and retire.

Flags:
`)
		fs.PrintDefaults()
	}
	if len(args) == 0 {
		fs.Usage()
		return 2
	}
	verb := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "guard-consumer creds %s: %v\n", verb, err)
		return 1
	}
	if *dir == "" {
		fmt.Fprintf(stderr, "guard-consumer creds %s: -dir is required\n", verb)
		return 2
	}
	switch verb {
	case "init":
		if err := auth.Init(*dir); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "deployment in %s:\n  %s: include it in the servers' configuration\n  %s, %s: credentials of guard-consumer and an operator\n  keys/: signing keys; keep them secret\n",
			*dir, filepath.Join(*dir, auth.AuthConf), filepath.Join(*dir, "creds", "guard-consumer.creds"), filepath.Join(*dir, "creds", "operator.creds"))
	case "setup":
		setup.Dir, setup.Tenant = *dir, *tenant
		if *hosts != "" {
			setup.Hosts = strings.Split(*hosts, ",")
		}
		if err := setup.Run(); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "deployment in %s (keep it secret); files written for:", *dir)
		for _, d := range []struct{ who, dir string }{{"server", setup.Server}, {"guard-consumer", setup.Guard}, {"agent " + setup.Tenant, setup.Agent}, {"operator", setup.Operator}} {
			if d.dir != "" {
				fmt.Fprintf(stdout, " %s in %s;", d.who, d.dir)
			}
		}
		fmt.Fprintln(stdout)
	case "issue":
		r, n := auth.Role(*role), *name
		if r == auth.RoleAgent {
			if *tenant == "" {
				fmt.Fprint(stderr, "guard-consumer creds issue: an agent needs -tenant, e.g.\n  guard-consumer creds issue -dir D -tenant acme -o acme.creds\n")
				return 2
			}
			n = *tenant
		}
		b, err := auth.Issue(*dir, r, n, *ttl)
		if err != nil {
			return fail(err)
		}
		if *out == "" {
			_, _ = stdout.Write(b)
			return 0
		}
		if err := os.WriteFile(*out, b, 0o600); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stderr, "%s: credentials of %s %q\n", *out, r, n)
	case "revoke":
		if *creds == "" {
			fmt.Fprint(stderr, "guard-consumer creds revoke: -creds names the credentials file to revoke\n")
			return 2
		}
		if err := auth.Revoke(*dir, *creds); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "revoked; reload the servers to apply %s\n", filepath.Join(*dir, auth.AuthConf))
	case "rotate":
		if err := auth.Rotate(*dir, auth.Role(*role)); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "the %s signing key is new and the old one still valid; reload the servers to apply %s, issue and hand out new credentials, then retire the old key\n", *role, filepath.Join(*dir, auth.AuthConf))
	case "retire":
		if err := auth.Retire(*dir, auth.Role(*role)); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "the old %s signing keys are gone; reload the servers to apply %s\n", *role, filepath.Join(*dir, auth.AuthConf))
	default:
		fmt.Fprintf(stderr, "guard-consumer creds: unknown command %q; want init, setup, issue, revoke, rotate or retire\n", verb)
		return 2
	}
	return 0
}
