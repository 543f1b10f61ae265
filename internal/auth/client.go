package auth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Client is how a guardstream process authenticates to a NATS server and
// checks the server's certificate. The zero Client connects without
// credentials and, for a tls:// URL, trusts the system's roots.
type Client struct {
	// Creds is a user credentials file (JWT and seed), as Issue writes.
	Creds string
	// NKey is a file holding an nkey seed, for a server that lists the
	// key among its users (the embedded default's operator key).
	NKey string
	// TLSCA is a PEM file of the certificate authorities to trust for the
	// server's certificate; setting it requires TLS.
	TLSCA string
	// TLSCert and TLSKey are the client's certificate and key, for a
	// server that verifies clients (mutual TLS). Give both or neither.
	TLSCert, TLSKey string
}

// RegisterFlags registers c's settings as the flags -creds, -nkey,
// -tls-ca, -tls-cert and -tls-key of fs.
func (c *Client) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Creds, "creds", "", "user credentials file to connect with (guard-consumer creds issue)")
	fs.StringVar(&c.NKey, "nkey", "", "nkey seed file to connect with, for a server that lists the key among its users")
	fs.StringVar(&c.TLSCA, "tls-ca", "", "PEM file of the certificate authorities that sign the server's certificate; requires TLS")
	fs.StringVar(&c.TLSCert, "tls-cert", "", "client certificate (PEM), for a server that verifies clients; with -tls-key")
	fs.StringVar(&c.TLSKey, "tls-key", "", "key of the client certificate (PEM)")
}

// Set reports whether c has any setting.
func (c Client) Set() bool { return c != Client{} }

// Validate reports every setting that cannot work, saying what to change:
// files that are missing or do not hold what they should, a certificate
// without its key.
func (c Client) Validate() error {
	var errs []error
	if c.Creds != "" && c.NKey != "" {
		errs = append(errs, errors.New("-creds and -nkey both given; a connection authenticates with one of them"))
	}
	if c.Creds != "" {
		if _, err := readCreds(c.Creds); err != nil {
			errs = append(errs, fmt.Errorf("-creds %s: %w (issue one with 'guard-consumer creds issue')", c.Creds, err))
		}
	}
	if c.NKey != "" {
		if _, err := readSeed(c.NKey); err != nil {
			errs = append(errs, fmt.Errorf("-nkey %s: %w", c.NKey, err))
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("-tls-cert and -tls-key go together: give the client certificate and its key, or neither"))
	}
	if c.TLSCert != "" && c.TLSKey != "" {
		if _, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey); err != nil {
			errs = append(errs, fmt.Errorf("-tls-cert %s, -tls-key %s: %w", c.TLSCert, c.TLSKey, err))
		}
	}
	if c.TLSCA != "" {
		if _, err := readCAs(c.TLSCA); err != nil {
			errs = append(errs, fmt.Errorf("-tls-ca %s: %w", c.TLSCA, err))
		}
	}
	return errors.Join(errs...)
}

// Options returns the connection options c stands for.
func (c Client) Options() ([]nats.Option, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var opts []nats.Option
	if c.Creds != "" {
		opts = append(opts, nats.UserCredentials(c.Creds))
	}
	if c.NKey != "" {
		kp, err := readSeed(c.NKey)
		if err != nil {
			return nil, err
		}
		opts = append(opts, KeyOption(kp))
	}
	if c.TLSCA != "" || c.TLSCert != "" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if c.TLSCA != "" {
			pool, err := readCAs(c.TLSCA)
			if err != nil {
				return nil, err
			}
			cfg.RootCAs = pool
		}
		if c.TLSCert != "" {
			cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
			if err != nil {
				return nil, err
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		opts = append(opts, nats.Secure(cfg))
	}
	return opts, nil
}

// KeyOption authenticates a connection with the nkey kp.
func KeyOption(kp nkeys.KeyPair) nats.Option {
	pub, _ := kp.PublicKey()
	return nats.Nkey(pub, kp.Sign)
}

func readCreds(path string) (*jwt.UserClaims, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tok, err := jwt.ParseDecoratedJWT(b)
	if err != nil {
		return nil, fmt.Errorf("not a credentials file: %w", err)
	}
	uc, err := jwt.DecodeUserClaims(tok)
	if err != nil {
		return nil, fmt.Errorf("not a credentials file: %w", err)
	}
	if _, err := jwt.ParseDecoratedUserNKey(b); err != nil {
		return nil, fmt.Errorf("the credentials file holds no user seed: %w", err)
	}
	return uc, nil
}

func readSeed(path string) (nkeys.KeyPair, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kp, err := nkeys.ParseDecoratedNKey(b)
	if err != nil {
		return nil, fmt.Errorf("not an nkey seed: %w", err)
	}
	return kp, nil
}

func readCAs(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, errors.New("no PEM certificate in it")
	}
	return pool, nil
}
