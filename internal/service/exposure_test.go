package service

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/runnertest"
)

func TestExposureWarnings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client auth.Client
		want   []string
	}{
		{"nothing", auth.Client{}, []string{"neither -creds nor -nkey"}},
		{"a CA alone", auth.Client{TLSCA: "ca.pem"}, []string{"neither -creds nor -nkey"}},
		{"credentials", auth.Client{Creds: "guard.creds"}, nil},
		{"an nkey", auth.Client{NKey: "guard.nk"}, nil},
	} {
		got := exposureWarnings(tc.client, nil)
		if len(got) != len(tc.want) || len(got) > 0 && !strings.Contains(got[0], tc.want[0]) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// In production, guard-consumer on a plain connection without
// credentials says so at start, once for each.
func TestProductionWarnsAboutAnOpenConnection(t *testing.T) {
	srv := monitoredServer(t, true)
	var log runnertest.Buffer
	cfg := testConfig(srv.ClientURL())
	cfg.Production, cfg.Monitor, cfg.HTTP = true, []string{"http://" + srv.MonitorAddr().String()}, ""
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	svc, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The warnings are logged before Start returns; closing this soon
	// may cut a partition's set-up short, which is not what is tested.
	if err := svc.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	for _, want := range []string{"production: guard-consumer connects to NATS with neither -creds nor -nkey", "production: the connection to NATS (nats://127.0.0.1:"} {
		if n := strings.Count(log.String(), want); n != 1 {
			t.Errorf("%d warnings with %q, want 1; the log:\n%s", n, want, log.String())
		}
	}
}
