package integration

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/nats-io/nats-server/v2/server"
	"sigs.k8s.io/yaml"
)

// routePassword is the route password the tests give the shipped config.
const routePassword = "r0123456789abcdef"

// shippedConfig writes deploy/nats/nats.conf into a temporary directory,
// reading its auth files from there, with the files 'creds setup -server'
// writes, and returns its path.
func shippedConfig(t *testing.T) string {
	t.Helper()
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
	return path
}

// loadNode loads the shipped config as nats-server does, with a node's
// environment as compose gives it.
func loadNode(t *testing.T, path, name, routes string) *server.Options {
	t.Helper()
	t.Setenv("SERVER_NAME", name)
	t.Setenv("ROUTES", routes)
	t.Setenv("ROUTE_PASSWORD", routePassword)
	t.Setenv("CLUSTER_LISTEN", name+"-routes:6222")
	t.Setenv("MONITOR_LISTEN", name+"-monitor:8222")
	o, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestShippedClusterConfig loads deploy/nats/nats.conf as nats-server does,
// with a node's environment and the files 'creds setup -server' writes in
// its auth directory: every write fsynced, JetStream on /data, three
// routes, TLS for clients, operator-mode accounts and no way in without
// credentials; routes and monitoring where the environment puts them, and
// routes only with the route password.
func TestShippedClusterConfig(t *testing.T) {
	routes := "[nats://route:" + routePassword + "@nats-1-routes:6222, nats://route:" + routePassword + "@nats-2-routes:6222, nats://route:" + routePassword + "@nats-3-routes:6222]"
	o := loadNode(t, shippedConfig(t), "nats-2", routes)
	if o.ServerName != "nats-2" || !o.JetStream || !o.SyncAlways || o.StoreDir != "/data" ||
		o.Cluster.Name != "guardstream" || len(o.Routes) != 3 || o.HTTPPort != 8222 {
		t.Errorf("nats.conf gives name %q, jetstream %v, sync always %v, store %q, cluster %q, %d routes, monitoring port %d",
			o.ServerName, o.JetStream, o.SyncAlways, o.StoreDir, o.Cluster.Name, len(o.Routes), o.HTTPPort)
	}
	if anon, how := auth.Anonymous(o); o.TLSConfig == nil || len(o.TrustedOperators) != 1 || anon {
		t.Errorf("nats.conf: client TLS %v, %d trusted operators, anonymous %v (%s); want TLS, the deployment's operator and no anonymous",
			o.TLSConfig != nil, len(o.TrustedOperators), anon, how)
	}
	if o.HTTPHost != "nats-2-monitor" || o.Cluster.Host != "nats-2-routes" || o.Cluster.Port != 6222 {
		t.Errorf("nats.conf: monitoring on %q, routes on %s:%d; want MONITOR_LISTEN's and CLUSTER_LISTEN's hosts", o.HTTPHost, o.Cluster.Host, o.Cluster.Port)
	}
	if o.Cluster.Username != "route" || o.Cluster.Password != routePassword {
		t.Errorf("nats.conf: routes need user %q password %q; want route and ROUTE_PASSWORD", o.Cluster.Username, o.Cluster.Password)
	}
	if o.Cluster.TLSConfig != nil {
		t.Error("nats.conf encrypts the routes; the comment says it does not")
	}
}

// TestShippedRoutesNeedPassword starts nodes of the shipped config (without
// JetStream, on loopback) and a rogue server with the same config, operator
// and accounts, but without the route password, or with a wrong one: the
// node refuses the rogue as a route, and takes a peer with the password.
func TestShippedRoutesNeedPassword(t *testing.T) {
	path := shippedConfig(t)
	start := func(name, routes string, change func(*server.Options)) *server.Server {
		t.Helper()
		o := loadNode(t, path, name, routes)
		o.Host, o.Port, o.HTTPPort, o.JetStream = "127.0.0.1", -1, 0, false
		o.Cluster.Host, o.Cluster.Port = "127.0.0.1", -1
		o.NoLog, o.NoSigs = true, true
		if change != nil {
			change(o)
		}
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(s.Shutdown)
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatalf("%s did not start", name)
		}
		return s
	}
	node := start("nats-1", "[]", nil)
	at := func(user *url.Userinfo) string {
		return (&url.URL{Scheme: "nats", User: user, Host: node.ClusterAddr().String()}).String()
	}
	start("rogue-1", "["+at(nil)+"]", func(o *server.Options) { o.Cluster.Username, o.Cluster.Password = "", "" })
	start("rogue-2", "["+at(url.UserPassword("route", "guessed"))+"]", func(o *server.Options) { o.Cluster.Password = "guessed" })
	peer := start("nats-2", "["+at(url.UserPassword("route", routePassword))+"]", nil)
	deadline := time.Now().Add(10 * time.Second)
	for peer.NumRoutes() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if peer.NumRoutes() == 0 {
		t.Fatal("a node with the route password got no route to nats-1")
	}
	time.Sleep(time.Second) // the rogues have retried by now
	// What the cluster holds is what counts: a rogue may count its own
	// attempt as a route for the moment before nats-1 refuses it.
	for _, s := range []*server.Server{node, peer} {
		routez, err := s.Routez(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range routez.Routes {
			if r.RemoteName != "nats-1" && r.RemoteName != "nats-2" {
				t.Errorf("%s has a route to %q", s.Name(), r.RemoteName)
			}
		}
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
