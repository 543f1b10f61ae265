package auth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Setup makes a deployment once and hands each kind of process the files
// it needs, in a directory of its own: what 'guard-consumer creds setup'
// does, and what the shipped compose file runs before the cluster starts.
// Each output directory holds only its process's secrets, so that a
// container given one cannot act as another.
type Setup struct {
	// Dir is the deployment directory: Init makes it unless it holds one
	// already. It keeps the signing keys; give it to no container.
	Dir string
	// Hosts are the names the servers are reached at, for the TLS
	// certificate MakeTLS makes unless Dir/tls holds one.
	Hosts []string
	// Tenant is the tenant of the agent whose credentials Agent receives;
	// they are issued once and kept in Dir/creds.
	Tenant string
	// Server, Guard, Agent and Operator are the directories to fill, or
	// empty:
	//
	//	Server    auth.conf, server-cert.pem, server-key.pem, ca.pem
	//	Guard     guard-consumer.creds, ca.pem
	//	Agent     <Tenant>.creds, ca.pem
	//	Operator  operator.creds, ca.pem
	Server, Guard, Agent, Operator string
}

// GuardCreds and OperatorCreds are the names of the credentials files Init
// issues, in Dir/creds and in the directories Setup fills.
const (
	GuardCreds    = "guard-consumer.creds"
	OperatorCreds = "operator.creds"
)

// Run makes what s describes. It can run again: it reuses the deployment,
// certificates and credentials it finds, and rewrites the output
// directories (auth.conf changes with every revoke and rotation).
func (s Setup) Run() error {
	if s.Dir == "" {
		return errors.New("auth: setup needs a deployment directory")
	}
	if err := Init(s.Dir); err != nil && !errors.Is(err, ErrExists) {
		return err
	}
	if err := MakeTLS(s.Dir, s.Hosts); err != nil {
		return err
	}
	agent := ""
	if s.Agent != "" {
		if s.Tenant == "" {
			return errors.New("auth: the agent's credentials need a tenant")
		}
		agent = s.Tenant + ".creds"
		path := filepath.Join(s.Dir, credsDir, agent)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			creds, err := Issue(s.Dir, RoleAgent, s.Tenant, 0)
			if err != nil {
				return err
			}
			if err := writeSecret(path, creds); err != nil {
				return err
			}
		}
	}
	tls := func(name string) string { return filepath.Join(TLSDir, name) }
	creds := func(name string) string { return filepath.Join(credsDir, name) }
	for _, out := range []struct {
		dir   string
		files []string
	}{
		{s.Server, []string{AuthConf, tls(ServerCertFile), tls(ServerKeyFile), tls(CAFile)}},
		{s.Guard, []string{creds(GuardCreds), tls(CAFile)}},
		{s.Agent, []string{creds(agent), tls(CAFile)}},
		{s.Operator, []string{creds(OperatorCreds), tls(CAFile)}},
	} {
		if out.dir == "" {
			continue
		}
		if err := os.MkdirAll(out.dir, 0o700); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
		for _, f := range out.files {
			if err := copySecret(filepath.Join(s.Dir, f), filepath.Join(out.dir, filepath.Base(f))); err != nil {
				return err
			}
		}
	}
	return nil
}

// copySecret copies the file at from to to, readable by its owner only
// unless it is a certificate or auth.conf, which hold no secret.
func copySecret(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	base := filepath.Base(from)
	return replaceMode(to, b, base != AuthConf && base != CAFile && base != ServerCertFile)
}
