package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/nats-io/nats-server/v2/server"
	"sigs.k8s.io/yaml"
)

// TestShippedClusterConfig loads deploy/nats/nats.conf as nats-server does,
// with a node's environment and the files 'creds setup -server' writes in
// its auth directory: every write fsynced, JetStream on /data, three
// routes, TLS for clients, operator-mode accounts and no way in without
// credentials.
func TestShippedClusterConfig(t *testing.T) {
	t.Setenv("SERVER_NAME", "nats-2")
	t.Setenv("ROUTES", "[nats://nats-1:6222, nats://nats-2:6222, nats://nats-3:6222]")
	dir := t.TempDir()
	if err := (auth.Setup{Dir: filepath.Join(dir, "private"), Hosts: []string{"nats-2"}, Server: filepath.Join(dir, "auth")}).Run(); err != nil {
		t.Fatal(err)
	}
	conf := string(mustRead(t, "../deploy/nats/nats.conf"))
	if !strings.Contains(conf, "/etc/nats/auth/") {
		t.Fatal("nats.conf no longer reads its TLS files from /etc/nats/auth")
	}
	conf = strings.ReplaceAll(conf, "/etc/nats/auth/", filepath.Join(dir, "auth")+"/")
	path := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if o.ServerName != "nats-2" || !o.JetStream || !o.SyncAlways || o.StoreDir != "/data" ||
		o.Cluster.Name != "guardstream" || len(o.Routes) != 3 || o.HTTPPort != 8222 {
		t.Errorf("nats.conf gives name %q, jetstream %v, sync always %v, store %q, cluster %q, %d routes, monitoring port %d",
			o.ServerName, o.JetStream, o.SyncAlways, o.StoreDir, o.Cluster.Name, len(o.Routes), o.HTTPPort)
	}
	if anon, how := auth.Anonymous(o); o.TLSConfig == nil || len(o.TrustedOperators) != 1 || anon {
		t.Errorf("nats.conf: client TLS %v, %d trusted operators, anonymous %v (%s); want TLS, the deployment's operator and no anonymous",
			o.TLSConfig != nil, len(o.TrustedOperators), anon, how)
	}
	if o.Cluster.TLSConfig != nil {
		t.Error("nats.conf secures the routes; the comment says they are plain on the private network")
	}
}

// guardArgs are the flags every shipped guard-consumer runs with.
var guardArgs = []string{"-replicas=3", "-http=0.0.0.0:8280", "-profile=production"}

// guardSecure are the prefixes of the flags that give every shipped
// guard-consumer its credentials and TLS.
var guardSecure = []string{"-nats-url=tls://", "-creds=", "-tls-ca="}

// TestShippedManifests reads the compose file and the Kubernetes manifests:
// guard-consumer runs replicated, serves HTTP where its probes look, and is
// probed on /livez and /readyz.
func TestShippedManifests(t *testing.T) {
	var compose struct {
		Services map[string]struct {
			Command     []string `json:"command"`
			Healthcheck struct {
				Test []string `json:"test"`
			} `json:"healthcheck"`
		} `json:"services"`
	}
	readYAML(t, "../deploy/compose.yaml", &compose)
	consumers := 0
	for name, s := range compose.Services {
		if !strings.HasPrefix(name, "guard-consumer") {
			continue
		}
		consumers++
		checkArgs(t, name, s.Command)
		if !slices.Contains(s.Healthcheck.Test, "ready") {
			t.Errorf("compose %s: health check %v does not run guard-consumer ready", name, s.Healthcheck.Test)
		}
	}
	if consumers != 2 {
		t.Errorf("compose runs %d guard-consumers, want 2", consumers)
	}

	docs := bytes.Split(mustRead(t, "../deploy/k8s/guard-consumer.yaml"), []byte("\n---\n"))
	type probe struct {
		HTTPGet struct {
			Path string `json:"path"`
			Port string `json:"port"`
		} `json:"httpGet"`
	}
	var deployment struct {
		Kind string `json:"kind"`
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args           []string `json:"args"`
						LivenessProbe  probe    `json:"livenessProbe"`
						ReadinessProbe probe    `json:"readinessProbe"`
						Ports          []struct {
							Name          string `json:"name"`
							ContainerPort int    `json:"containerPort"`
						} `json:"ports"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(docs[0], &deployment); err != nil || deployment.Kind != "Deployment" {
		t.Fatalf("guard-consumer.yaml's first document: %v (kind %q)", err, deployment.Kind)
	}
	c := deployment.Spec.Template.Spec.Containers[0]
	checkArgs(t, "Kubernetes guard-consumer", c.Args)
	if c.LivenessProbe.HTTPGet.Path != "/livez" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes: liveness %q, readiness %q", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != c.ReadinessProbe.HTTPGet.Port || c.Ports[0].ContainerPort != 8280 {
		t.Errorf("ports %+v, probed on %q", c.Ports, c.ReadinessProbe.HTTPGet.Port)
	}
	for _, f := range []string{"../deploy/k8s/nats.yaml", "../deploy/k8s/kustomization.yaml"} {
		for i, doc := range bytes.Split(mustRead(t, f), []byte("\n---\n")) {
			var v map[string]any
			if err := yaml.Unmarshal(doc, &v); err != nil || v["kind"] == nil {
				t.Errorf("%s, document %d: %v (kind %v)", f, i+1, err, v["kind"])
			}
		}
	}
}

func checkArgs(t *testing.T, who string, args []string) {
	t.Helper()
	for _, want := range guardArgs {
		if !slices.Contains(args, want) {
			t.Errorf("%s runs with %v, without %s", who, args, want)
		}
	}
	for _, want := range guardSecure {
		if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, want) }) {
			t.Errorf("%s runs with %v, without %s...", who, args, want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	if err := yaml.Unmarshal(mustRead(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
