package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Files of a deployment's TLS directory, as MakeTLS writes them.
const (
	TLSDir         = "tls"
	CAFile         = "ca.pem"
	caKeyFile      = "ca-key.pem"
	ServerCertFile = "server-cert.pem"
	ServerKeyFile  = "server-key.pem"
)

// TLSValidity is how long the certificates MakeTLS makes are valid.
const TLSValidity = 2 * 365 * 24 * time.Hour

// MakeTLS makes a certificate authority and a server certificate signed
// by it in dir/tls, for a test or staging deployment or the shipped
// compose file: production uses the organisation's CA. The certificate
// names hosts (DNS names or IP addresses) and always localhost and
// 127.0.0.1. Keys are ECDSA P-256, readable by their owner only. It does
// nothing when dir/tls already holds a CA.
func MakeTLS(dir string, hosts []string) error {
	tdir := filepath.Join(dir, TLSDir)
	if _, err := os.Stat(filepath.Join(tdir, CAFile)); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("auth: %w", err)
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	ca := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "guardstream CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(TLSValidity),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("auth: the CA certificate: %w", err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	cert := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "guardstream NATS"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(TLSValidity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range append([]string{"localhost", "127.0.0.1"}, hosts...) {
		if ip := net.ParseIP(h); ip != nil {
			if !slices.ContainsFunc(cert.IPAddresses, ip.Equal) {
				cert.IPAddresses = append(cert.IPAddresses, ip)
			}
		} else if h != "" && !slices.Contains(cert.DNSNames, h) {
			cert.DNSNames = append(cert.DNSNames, h)
		}
	}
	certDER, err := x509.CreateCertificate(rand.Reader, cert, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("auth: the server certificate: %w", err)
	}
	// The CA goes last: its presence says the directory is complete.
	for _, f := range []struct {
		name, typ string
		der       func() ([]byte, error)
		secret    bool
	}{
		{caKeyFile, "EC PRIVATE KEY", func() ([]byte, error) { return x509.MarshalECPrivateKey(caKey) }, true},
		{ServerKeyFile, "EC PRIVATE KEY", func() ([]byte, error) { return x509.MarshalECPrivateKey(key) }, true},
		{ServerCertFile, "CERTIFICATE", func() ([]byte, error) { return certDER, nil }, false},
		{CAFile, "CERTIFICATE", func() ([]byte, error) { return caDER, nil }, false},
	} {
		der, err := f.der()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(tdir, 0o700); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
		if err := replaceMode(filepath.Join(tdir, f.name), pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: der}), f.secret); err != nil {
			return err
		}
	}
	return nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}
