package service

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runnertest"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// monitoredServer starts a JetStream server with its monitoring port on.
func monitoredServer(t *testing.T, syncAlways bool) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{
		ServerName: "monitored", Host: "127.0.0.1", Port: -1, HTTPHost: "127.0.0.1", HTTPPort: -1,
		JetStream: true, StoreDir: t.TempDir(), SyncAlways: syncAlways, NoSigs: true, NoLog: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// TestProductionWarnings reads a real server's streams and /varz: R1
// streams and a 2-minute fsync are named; a server with sync always is not.
func TestProductionWarnings(t *testing.T) {
	ctx := context.Background()
	lazy := monitoredServer(t, false)
	nc, err := nats.Connect(lazy.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(lazy.ClientURL())
	if err := streams.Provision(ctx, js, cfg.Streams); err != nil {
		t.Fatal(err)
	}
	if _, err := objectstore.Provision(ctx, js, cfg.Outputs); err != nil {
		t.Fatal(err)
	}
	got := streamWarnings(ctx, js)
	for _, w := range got {
		t.Log(w)
	}
	for _, name := range []string{"AGENT_EVENTS", "GUARD_CONTROL", "GUARD_DLQ", "GUARD_TIMERS", "GUARD_OUTPUTS", "KV_guard_runs"} {
		if !containsAll(got, "stream "+name+" has 1 replica") {
			t.Errorf("no warning about %s's single replica", name)
		}
	}

	monitor := "http://" + lazy.MonitorAddr().String()
	w := serverWarnings(ctx, []string{monitor})
	t.Log(w)
	if len(w) != 1 || !strings.Contains(w[0], "fsyncs every 2m0s") {
		t.Errorf("server with the default sync: %q, want a warning that it fsyncs every 2m0s", w)
	}
	strict := monitoredServer(t, true)
	if w := serverWarnings(ctx, []string{"http://" + strict.MonitorAddr().String()}); len(w) != 0 {
		t.Errorf("server with sync always: %q, want no warning", w)
	}
	if w := serverWarnings(ctx, nil); len(w) != 1 || !strings.Contains(w[0], "-nats-monitor") {
		t.Errorf("no monitoring URL: %q, want a pointer to -nats-monitor", w)
	}
	if w := serverWarnings(ctx, []string{"http://127.0.0.1:1"}); len(w) != 1 || !strings.Contains(w[0], "cannot read") {
		t.Errorf("unreachable monitoring URL: %q", w)
	}
}

func containsAll(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestDurabilityOfTheRunningServer starts guard-consumer's embedded server
// from a configuration file with the production profile: the durability
// line and the production check name the fsync the server runs with,
// which is the file's sync_interval when it sets one, whatever -sync says.
func TestDurabilityOfTheRunningServer(t *testing.T) {
	for _, tc := range []struct {
		name, conf string
		flag       embedded.Sync // -sync
		want       string        // the durability line
		warn       string        // the production warning about fsync, "" for none
	}{
		{"file says always, -sync left at 2m", "jetstream { sync_interval: always }", embedded.Sync{},
			"durability: fsync after every write", ""},
		{"file says 10s, -sync always", `jetstream { sync_interval: "10s" }`, embedded.Sync{Always: true},
			"durability: fsync every 10s", "fsyncs every 10s, not after every write; set sync_interval: always in"},
		{"file silent, -sync always", "", embedded.Sync{Always: true},
			"durability: fsync after every write", ""},
		{"file silent, -sync 3s", "", embedded.Sync{Interval: 3 * time.Second},
			"durability: fsync every 3s", "fsyncs every 3s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			conf := filepath.Join(dir, "server.conf")
			if err := os.WriteFile(conf, []byte("listen: 127.0.0.1:-1\n"+tc.conf+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var log runnertest.Buffer
			cfg := testConfig("")
			cfg.HTTP, cfg.Production = "", true
			cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
			cfg.Embedded = embedded.Options{Name: "durability", StoreDir: filepath.Join(dir, "store"), ConfigFile: conf, Sync: tc.flag}
			svc, err := Start(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			natstest.Eventually(t, 15*time.Second, svc.ready)
			if err := svc.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			var lines []string
			for _, l := range strings.Split(log.String(), "\n") {
				if strings.Contains(l, "durability") || strings.Contains(l, "fsync") {
					lines = append(lines, l)
					t.Log(l)
				}
			}
			if !containsAll(lines, tc.want) {
				t.Errorf("no line says %q", tc.want)
			}
			switch warned := containsAll(lines, "production: the embedded server fsyncs"); {
			case tc.warn == "" && warned:
				t.Error("the production check warns about an fsync the server does not run with")
			case tc.warn != "" && !containsAll(lines, tc.warn):
				t.Errorf("no production warning says %q", tc.warn)
			}
		})
	}
}
