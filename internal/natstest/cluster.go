package natstest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Cluster is a JetStream cluster of embedded servers, routed to each
// other on loopback, each with its own store.
type Cluster struct {
	t       testing.TB
	Servers []*server.Server // nil once shut down
	opts    []*server.Options
}

// RunCluster starts an n-node JetStream cluster; it is shut down when the
// test ends. It returns once JetStream's meta leader knows every node.
func RunCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		ports[i] = freePort(t)
	}
	c := &Cluster{t: t, Servers: make([]*server.Server, n), opts: make([]*server.Options, n)}
	for i := range n {
		var routes []string
		for j, p := range ports {
			if j != i {
				routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
			}
		}
		c.opts[i] = &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       -1,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoSigs:     true,
			NoLog:      true,
			Cluster:    server.ClusterOpts{Name: "guardstream-test", Host: "127.0.0.1", Port: ports[i]},
			Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
		}
		c.start(i)
	}
	t.Cleanup(func() {
		for i := range c.Servers {
			c.Shutdown(i)
		}
	})
	c.WaitReady()
	return c
}

// WaitReady waits until the JetStream meta leader knows every node that
// runs, so that streams with as many replicas can be placed.
func (c *Cluster) WaitReady() {
	c.t.Helper()
	want := 0
	for _, s := range c.Servers {
		if s != nil {
			want++
		}
	}
	Eventually(c.t, 30*time.Second, func() error {
		for _, s := range c.Servers {
			if s != nil && s.JetStreamIsLeader() {
				if n := len(s.JetStreamClusterPeers()); n != want {
					return fmt.Errorf("the meta leader knows %d nodes of %d", n, want)
				}
				return nil
			}
		}
		return fmt.Errorf("no JetStream meta leader yet")
	})
}

func (c *Cluster) start(i int) {
	c.t.Helper()
	s, err := server.NewServer(c.opts[i])
	if err != nil {
		c.t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		c.t.Fatalf("cluster node %s not ready within 10s", c.opts[i].ServerName)
	}
	c.Servers[i] = s
}

// URL returns the client URLs of the nodes that run, comma-separated.
func (c *Cluster) URL() string {
	var urls []string
	for _, s := range c.Servers {
		if s != nil {
			urls = append(urls, s.ClientURL())
		}
	}
	return strings.Join(urls, ",")
}

// Shutdown stops node i.
func (c *Cluster) Shutdown(i int) {
	if s := c.Servers[i]; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.Servers[i] = nil
	}
}

// Restart starts node i again, on its store, after Shutdown.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	if c.Servers[i] == nil {
		c.start(i)
	}
}

// Index returns the index of the node named name, or -1.
func (c *Cluster) Index(name string) int {
	for i, o := range c.opts {
		if o.ServerName == name {
			return i
		}
	}
	return -1
}

// Connect connects to the cluster, reconnecting to another node when one
// goes away; the connection closes when the test ends.
func (c *Cluster) Connect(name string) *nats.Conn {
	c.t.Helper()
	nc, err := nats.Connect(c.URL(), nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(nc.Close)
	return nc
}

// StepDownStream makes the leader of stream give up its leadership, and
// returns the name of the leader it had.
func StepDownStream(t testing.TB, nc *nats.Conn, stream string) string {
	t.Helper()
	return stepDown(t, nc, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, "$JS.API.STREAM.INFO."+stream)
}

// StepDownConsumer makes the leader of a stream's consumer give up its
// leadership, and returns the name of the leader it had.
func StepDownConsumer(t testing.TB, nc *nats.Conn, stream, consumer string) string {
	t.Helper()
	return stepDown(t, nc, "$JS.API.CONSUMER.LEADER.STEPDOWN."+stream+"."+consumer, "$JS.API.CONSUMER.INFO."+stream+"."+consumer)
}

func stepDown(t testing.TB, nc *nats.Conn, subject, info string) string {
	t.Helper()
	var resp struct {
		Cluster struct {
			Leader string `json:"leader"`
		} `json:"cluster"`
		Error *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := nc.RequestWithContext(ctx, info, nil)
	if err == nil {
		err = json.Unmarshal(m.Data, &resp)
	}
	if err != nil {
		t.Fatalf("%s: %v", info, err)
	}
	old := resp.Cluster.Leader
	m, err = nc.RequestWithContext(ctx, subject, nil)
	if err == nil {
		resp.Error = nil
		err = json.Unmarshal(m.Data, &resp)
	}
	if err == nil && resp.Error != nil {
		err = fmt.Errorf("%s", resp.Error.Description)
	}
	if err != nil {
		t.Fatalf("%s: %v", subject, err)
	}
	return old
}

// freePort returns a TCP port free on loopback now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
