package auth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"
)

// Files of an operator-mode deployment directory, as Init writes it:
//
//	auth.conf            operator JWT, system account and preloaded account
//	                     JWTs: include it in every server's configuration
//	jwt/<name>.jwt       the operator's and the accounts' JWTs
//	keys/<name>.nk       seeds of the operator and the accounts (identity keys)
//	keys/role-<role>.nk  seeds of the roles' scoped signing keys
//	creds/<name>.creds   credentials Init issues: guard-consumer, operator
//
// The directory holds secrets (keys/, creds/): keep it where only the
// people who issue credentials can read it. auth.conf holds none.
const (
	AuthConf = "auth.conf"
	jwtDir   = "jwt"
	keysDir  = "keys"
	credsDir = "creds"
	operator = "operator"
)

// ErrExists is returned by Init when the directory already holds a
// deployment.
var ErrExists = errors.New("auth: the directory already holds a deployment")

// Init makes a new operator-mode deployment in dir: an operator, the
// accounts SYS, GUARD (with JetStream) and AGENTS, a scoped signing key per
// role whose template is the role's permissions, auth.conf, and
// credentials for guard-consumer and one operator.
func Init(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, AuthConf)); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, dir)
	}
	op, err := newKey(dir, operator, nkeys.CreateOperator)
	if err != nil {
		return err
	}
	opPub, _ := op.PublicKey()
	accounts := map[string]nkeys.KeyPair{}
	for _, name := range []string{SystemAccount, GuardAccount, AgentsAccount} {
		if accounts[name], err = newKey(dir, name, nkeys.CreateAccount); err != nil {
			return err
		}
	}
	sysPub, _ := accounts[SystemAccount].PublicKey()
	guardPub, _ := accounts[GuardAccount].PublicKey()
	oc := jwt.NewOperatorClaims(opPub)
	oc.Name, oc.SystemAccount = "guardstream", sysPub
	if err := writeJWT(dir, operator, oc, op); err != nil {
		return err
	}
	for name, kp := range accounts {
		pub, _ := kp.PublicKey()
		ac := jwt.NewAccountClaims(pub)
		ac.Name = name
		switch name {
		case GuardAccount:
			ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
			for _, s := range Layout {
				ac.Exports.Add(&jwt.Export{Subject: jwt.Subject(s.Subject), Type: s.jwtType()})
			}
		case AgentsAccount:
			for _, s := range Layout {
				ac.Imports.Add(&jwt.Import{Account: guardPub, Subject: jwt.Subject(s.Subject), Type: s.jwtType()})
			}
		}
		for _, role := range Roles {
			if role.Account() != name {
				continue
			}
			if err := addRoleKey(dir, ac, role); err != nil {
				return err
			}
		}
		if err := writeJWT(dir, name, ac, op); err != nil {
			return err
		}
	}
	if err := writeAuthConf(dir); err != nil {
		return err
	}
	for role, name := range map[Role]string{RoleGuard: "guard-consumer", RoleOperator: operator} {
		creds, err := Issue(dir, role, name, 0)
		if err != nil {
			return err
		}
		if err := writeSecret(filepath.Join(dir, credsDir, name+".creds"), creds); err != nil {
			return err
		}
	}
	return nil
}

func (s Share) jwtType() jwt.ExportType {
	if s.Service {
		return jwt.Service
	}
	return jwt.Stream
}

// addRoleKey makes a new scoped signing key for role and adds it to ac,
// with the role's permissions as its template.
func addRoleKey(dir string, ac *jwt.AccountClaims, role Role) error {
	kp, err := nkeys.CreateAccount()
	if err != nil {
		return err
	}
	seed, _ := kp.Seed()
	if err := writeKey(dir, "role-"+string(role), seed); err != nil {
		return err
	}
	pub, _ := kp.PublicKey()
	scope := jwt.NewUserScope()
	scope.Key, scope.Role = pub, string(role)
	scope.Description = "guardstream " + string(role) + " identities"
	p, err := For(role, NameTemplate)
	if err != nil {
		return err
	}
	if p != nil {
		scope.Template.Pub = jwt.Permission{Allow: p.PubAllow, Deny: p.PubDeny}
		scope.Template.Sub = jwt.Permission{Allow: p.SubAllow, Deny: p.SubDeny}
	}
	ac.SigningKeys.AddScopedSigner(scope)
	return nil
}

// Issue returns credentials (a .creds file's bytes) for a new identity of
// role, signed with the role's scoped signing key in dir, so the role's
// permissions apply. name is the identity's name; for an agent it is the
// tenant, which the permissions put in every subject. A ttl of 0 issues
// credentials that do not expire.
func Issue(dir string, role Role, name string, ttl time.Duration) ([]byte, error) {
	if !role.Valid() {
		return nil, fmt.Errorf("auth: unknown role %q; want guard, operator, dashboard or agent", role)
	}
	if role == RoleAgent {
		err := event.CheckID(name)
		if err == nil && strings.ContainsAny(name, "{}") {
			err = errors.New("contains braces, which permission templates reserve")
		}
		if err != nil {
			return nil, fmt.Errorf("auth: an agent's name is its tenant, and %q is not a tenant id: %w", name, err)
		}
	}
	if name == "" {
		return nil, errors.New("auth: an identity needs a name")
	}
	signer, err := readSeed(filepath.Join(dir, keysDir, "role-"+string(role)+".nk"))
	if err != nil {
		return nil, fmt.Errorf("auth: the %s signing key: %w (is %s a deployment made by 'guard-consumer creds init'?)", role, err, dir)
	}
	acc, err := readSeed(filepath.Join(dir, keysDir, role.Account()+".nk"))
	if err != nil {
		return nil, err
	}
	accPub, _ := acc.PublicKey()
	user, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	userPub, _ := user.PublicKey()
	uc := jwt.NewUserClaims(userPub)
	uc.Name, uc.IssuerAccount = name, accPub
	uc.SetScoped(true)
	if ttl > 0 {
		uc.Expires = time.Now().Add(ttl).Unix()
	}
	tok, err := uc.Encode(signer)
	if err != nil {
		return nil, err
	}
	seed, _ := user.Seed()
	return jwt.FormatUserConfig(tok, seed)
}

// Revoke revokes, from now on, the identity whose credentials file is at
// creds, by entering its key in its account's revocations. The servers
// learn of it when they reload auth.conf.
func Revoke(dir, creds string) error {
	uc, err := readCreds(creds)
	if err != nil {
		return fmt.Errorf("auth: %s: %w", creds, err)
	}
	return updateAccount(dir, uc.IssuerAccount, func(ac *jwt.AccountClaims) error {
		ac.Revoke(uc.Subject)
		return nil
	})
}

// Rotate gives role a new scoped signing key, which Issue uses from now
// on. The old key stays valid, so identities issued with it keep working
// while new credentials are handed out; Retire then removes it.
func Rotate(dir string, role Role) error {
	acc, err := roleAccount(dir, role)
	if err != nil {
		return err
	}
	return updateAccount(dir, acc, func(ac *jwt.AccountClaims) error {
		path := filepath.Join(dir, keysDir, "role-"+string(role)+".nk")
		if err := os.Rename(path, path+"."+time.Now().UTC().Format("20060102T150405")); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
		return addRoleKey(dir, ac, role)
	})
}

// Retire removes every signing key of role but the current one: the
// identities issued with them stop working once the servers reload
// auth.conf.
func Retire(dir string, role Role) error {
	acc, err := roleAccount(dir, role)
	if err != nil {
		return err
	}
	cur, err := readSeed(filepath.Join(dir, keysDir, "role-"+string(role)+".nk"))
	if err != nil {
		return err
	}
	curPub, _ := cur.PublicKey()
	return updateAccount(dir, acc, func(ac *jwt.AccountClaims) error {
		for key, scope := range ac.SigningKeys {
			if us, ok := scope.(*jwt.UserScope); ok && us.Role == string(role) && key != curPub {
				ac.SigningKeys.Remove(key)
			}
		}
		return nil
	})
}

// roleAccount returns the public key of the account role's identities
// live in.
func roleAccount(dir string, role Role) (string, error) {
	if !role.Valid() {
		return "", fmt.Errorf("auth: unknown role %q; want guard, operator, dashboard or agent", role)
	}
	acc, err := readSeed(filepath.Join(dir, keysDir, role.Account()+".nk"))
	if err != nil {
		return "", err
	}
	return acc.PublicKey()
}

// updateAccount changes the JWT of the account with public key pub,
// re-signs it and rewrites auth.conf.
func updateAccount(dir, pub string, change func(*jwt.AccountClaims) error) error {
	op, err := readSeed(filepath.Join(dir, keysDir, operator+".nk"))
	if err != nil {
		return err
	}
	for _, name := range []string{GuardAccount, AgentsAccount} {
		b, err := os.ReadFile(filepath.Join(dir, jwtDir, name+".jwt"))
		if err != nil {
			return fmt.Errorf("auth: %w", err)
		}
		ac, err := jwt.DecodeAccountClaims(string(b))
		if err != nil {
			return fmt.Errorf("auth: %s.jwt: %w", name, err)
		}
		if ac.Subject != pub {
			continue
		}
		if err := change(ac); err != nil {
			return err
		}
		if err := writeJWT(dir, name, ac, op); err != nil {
			return err
		}
		return writeAuthConf(dir)
	}
	return fmt.Errorf("auth: no account of %s has the key %s", dir, pub)
}

// newKey makes a key with create and keeps its seed in keys/<name>.nk.
func newKey(dir, name string, create func() (nkeys.KeyPair, error)) (nkeys.KeyPair, error) {
	kp, err := create()
	if err != nil {
		return nil, err
	}
	seed, _ := kp.Seed()
	return kp, writeKey(dir, name, seed)
}

func writeKey(dir, name string, seed []byte) error {
	return writeSecret(filepath.Join(dir, keysDir, name+".nk"), seed)
}

// writeJWT encodes claims with signer into jwt/<name>.jwt, replacing it.
func writeJWT(dir, name string, claims jwt.Claims, signer nkeys.KeyPair) error {
	tok, err := claims.Encode(signer)
	if err != nil {
		return fmt.Errorf("auth: encoding %s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, jwtDir), 0o755); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return replace(filepath.Join(dir, jwtDir, name+".jwt"), []byte(tok))
}

// writeAuthConf writes auth.conf from the JWTs in jwt/.
func writeAuthConf(dir string) error {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, jwtDir, name+".jwt"))
		return string(b), err
	}
	opJWT, err := read(operator)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	oc, err := jwt.DecodeOperatorClaims(opJWT)
	if err != nil {
		return fmt.Errorf("auth: operator.jwt: %w", err)
	}
	var b strings.Builder
	b.WriteString("# guardstream authorization: written by 'guard-consumer creds', do not edit.\n")
	b.WriteString("# Include it in every server's configuration (include ./auth.conf) and reload\n")
	b.WriteString("# the servers (nats-server --signal reload) after each revoke or rotate.\n")
	fmt.Fprintf(&b, "operator: %s\nsystem_account: %s\nresolver: MEMORY\nresolver_preload: {\n", opJWT, oc.SystemAccount)
	for _, name := range []string{SystemAccount, GuardAccount, AgentsAccount} {
		tok, err := read(name)
		if err != nil {
			return fmt.Errorf("auth: %w", err)
		}
		ac, err := jwt.DecodeAccountClaims(tok)
		if err != nil {
			return fmt.Errorf("auth: %s.jwt: %w", name, err)
		}
		fmt.Fprintf(&b, "  # %s\n  %s: %s\n", name, ac.Subject, tok)
	}
	b.WriteString("}\n")
	return replace(filepath.Join(dir, AuthConf), []byte(b.String()))
}

// replace writes b to path through a temporary file and a rename.
func replace(path string, b []byte) error { return replaceMode(path, b, false) }

// replaceMode is replace for a file that is secret (readable by its owner
// only) or not.
func replaceMode(path string, b []byte, secret bool) error {
	mode := os.FileMode(0o644)
	if secret {
		mode = 0o600
	}
	tmp := path + ".tmp"
	_ = os.Remove(tmp)
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return nil
}
