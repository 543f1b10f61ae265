package service

import (
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/nats-io/nats.go"
)

// exposureWarnings names what production lacks in how guard-consumer
// reaches the servers at -nats-url: credentials of its own (-creds or
// -nkey), and TLS on the connection nc.
func exposureWarnings(c auth.Client, nc *nats.Conn) []string {
	var warnings []string
	if c.Creds == "" && c.NKey == "" {
		warnings = append(warnings, "guard-consumer connects to NATS with neither -creds nor -nkey, so the servers let connections in "+
			"without a key of their own, and whoever reaches them may do what guard-consumer does; give the servers accounts "+
			"(guard-consumer creds init, deploy/security) and guard-consumer -creds")
	}
	if nc == nil {
		return warnings
	}
	if _, err := nc.TLSConnectionState(); err != nil {
		warnings = append(warnings, "the connection to NATS ("+nc.ConnectedUrlRedacted()+") is not TLS: credentials, events and decisions "+
			"cross the network in the clear; give the servers a tls {} block and guard-consumer a tls:// URL with -tls-ca")
	}
	return warnings
}
