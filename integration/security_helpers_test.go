package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/nats-io/nats.go"
)

// watched is a connection that records the permission violations the
// server reports to it.
type watched struct {
	*nats.Conn
	errs chan error
}

func dial(t *testing.T, url, name string, opts ...nats.Option) *watched {
	t.Helper()
	w := &watched{errs: make(chan error, 64)}
	opts = append(opts, nats.Name(name), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case w.errs <- err:
		default:
		}
	}))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatalf("%s: connecting to %s: %v", name, url, err)
	}
	t.Cleanup(nc.Close)
	w.Conn = nc
	return w
}

// violation runs do, then waits for the server to report a permission
// violation on subject, and returns its text, or "" if none came.
func (w *watched) violation(subject string, do func() error) string {
	for len(w.errs) > 0 {
		<-w.errs
	}
	if err := do(); err != nil && !strings.Contains(err.Error(), "ermission") {
		return ""
	}
	_ = w.FlushTimeout(2 * time.Second)
	timeout := time.After(2 * time.Second)
	for {
		select {
		case err := <-w.errs:
			if strings.Contains(err.Error(), fmt.Sprintf("%q", subject)) {
				return err.Error()
			}
		case <-timeout:
			return ""
		}
	}
}

// testTLS writes a certificate authority and a server certificate for
// 127.0.0.1 into dir, and returns the paths of the CA, the certificate
// and its key.
func testTLS(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	if err := auth.MakeTLS(dir, nil); err != nil {
		t.Fatal(err)
	}
	tls := filepath.Join(dir, auth.TLSDir)
	return filepath.Join(tls, auth.CAFile), filepath.Join(tls, auth.ServerCertFile), filepath.Join(tls, auth.ServerKeyFile)
}
