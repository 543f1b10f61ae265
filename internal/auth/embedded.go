package auth

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nkeys"
)

// Embedded describes the embedded default's identities.
type Embedded struct {
	// Guard is the public nkey guard-consumer connects with, in process.
	Guard string
	// Operator is the public nkey of the local operator, whose seed
	// guard-consumer keeps in its data directory for its own subcommands.
	Operator string
	// AnonymousTenant is the tenant connections without credentials act
	// for: a tenant id, or AnyTenant.
	AnonymousTenant string
}

// Config returns the authorization part of the embedded server's
// configuration: the two accounts, guard-consumer and the operator in
// GUARD, and the anonymous agent in AGENTS.
func (e Embedded) Config() (string, error) {
	agent, err := For(RoleAgent, e.AnonymousTenant)
	if err != nil {
		return "", err
	}
	// All anonymous connections are one identity: they share the inbox
	// space, so agents connect with the default prefix.
	agent.SubAllow = []string{agent.SubAllow[0], "_INBOX.>"}
	operator, _ := For(RoleOperator, "")
	// Connections without credentials are bound to this key's user; its
	// seed is dropped, so no one can present it.
	anon, err := nkeys.CreateUser()
	if err != nil {
		return "", err
	}
	anonPub, _ := anon.PublicKey()
	var b strings.Builder
	fmt.Fprintf(&b, "accounts: {\n  %s: {\n    jetstream: enabled\n    users: [\n", GuardAccount)
	fmt.Fprintf(&b, "      {nkey: %q}\n", e.Guard)
	fmt.Fprintf(&b, "      {nkey: %q, permissions: %s}\n", e.Operator, operator.conf())
	b.WriteString("    ]\n    exports: [\n")
	for _, s := range Layout {
		fmt.Fprintf(&b, "      {%s: %q}\n", s.kind(), s.Subject)
	}
	fmt.Fprintf(&b, "    ]\n  }\n  %s: {\n    users: [\n", AgentsAccount)
	fmt.Fprintf(&b, "      {nkey: %q, permissions: %s}\n", anonPub, agent.conf())
	b.WriteString("    ]\n    imports: [\n")
	for _, s := range Layout {
		fmt.Fprintf(&b, "      {%s: {account: %s, subject: %q}}\n", s.kind(), GuardAccount, s.Subject)
	}
	fmt.Fprintf(&b, "    ]\n  }\n}\nno_auth_user: %s\n", anonPub)
	return b.String(), nil
}

func (s Share) kind() string {
	if s.Service {
		return "service"
	}
	return "stream"
}

// conf renders p in the server's configuration syntax.
func (p *Permissions) conf() string {
	list := func(allow, deny []string) string {
		var parts []string
		for _, l := range []struct {
			name  string
			subjs []string
		}{{"allow", allow}, {"deny", deny}} {
			if len(l.subjs) == 0 {
				continue
			}
			q := make([]string, len(l.subjs))
			for i, s := range l.subjs {
				q[i] = strconv.Quote(s)
			}
			parts = append(parts, l.name+": ["+strings.Join(q, ", ")+"]")
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("{publish: %s, subscribe: %s}", list(p.PubAllow, p.PubDeny), list(p.SubAllow, p.SubDeny))
}
