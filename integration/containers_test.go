package integration

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/testcontainers/testcontainers-go"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
)

// The images deploy/build.sh builds, with the tag it gives them: $TAG,
// or dev.
var (
	imageTag   = cmp.Or(os.Getenv("TAG"), "dev")
	natsImage  = "guardstream/nats-server:" + imageTag
	guardImage = "guardstream/guard-consumer:" + imageTag
)

// containersTenant is the tenant of the scripted fleet.
const containersTenant = "containers"

// containerPartitions is the partition count of the containerised system.
const containerPartitions = 4

// TestContainersNodeDisconnect runs the shipped images: a 3-node JetStream
// cluster (R3, sync_interval: always, accounts and TLS from 'creds setup')
// and guard-consumer with its credentials, on a Docker network of their
// own; the fleet publishes as an agent, the test reads the streams as an
// operator. A scripted fleet publishes several thousand events
// while the node leading AGENT_EVENTS is disconnected from the network and
// reconnected. Then: every event the cluster acknowledged is stored, every
// call has exactly one verdict, in call order, and the control stream is
// the one a fresh guard-consumer makes from the same events without a fault
// (each decision stored once; a leader change may store a run's decisions
// in another order, docs/decisions/0008-ownership.md).
func TestContainersNodeDisconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3-node cluster in containers for about a minute")
	}
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true") // no reaper image to pull: each test cleans up after itself
	if host := os.Getenv("DOCKER_HOST"); os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" && (host == "" || strings.HasPrefix(host, "unix://")) {
		// The daemon is on this machine, so are the ports it publishes; in
		// a sandbox with a /.dockerenv, testcontainers would look for them
		// at the default gateway instead.
		t.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
	ctx := context.Background()
	docker := dockerOrSkip(t, ctx)
	begin := time.Now()

	net, err := tcnetwork.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = net.Remove(context.Background()) })
	secrets := containerSecrets(t)
	nodes := startCluster(t, ctx, net, secrets.Server)
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		if urls[i], err = n.PortEndpoint(ctx, "4222/tcp", "tls"); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(dir, creds string, opts ...nats.Option) jetstream.JetStream {
		opts = append(opts, nats.UserCredentials(filepath.Join(dir, creds)), nats.RootCAs(filepath.Join(dir, auth.CAFile)),
			nats.IgnoreDiscoveredServers(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
		nc, err := nats.Connect(strings.Join(urls, ","), opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	js := connect(secrets.Operator, auth.OperatorCreds)
	agent := connect(secrets.Agent, containersTenant+".creds", nats.CustomInboxPrefix(agentapi.InboxPrefix(containersTenant)))
	guard := startGuardContainer(t, ctx, net, "guard-1", secrets.Guard)
	t.Logf("cluster and guard-consumer ready in %v", time.Since(begin).Round(time.Millisecond))

	info, err := streamInfo(ctx, js, streams.EventStream)
	if err != nil {
		t.Fatal(err)
	}
	leader := info.Cluster.Leader
	victim := nodes[nodeIndex(t, leader)]

	f := newScriptedFleet(24, 40)
	fleetDone := make(chan error, 1)
	fleetStart := time.Now()
	go func() { fleetDone <- f.publish(ctx, agent, 60*time.Millisecond) }()

	// The fault, mid-stream: the stream's leader leaves the network for 4s.
	time.Sleep(2 * time.Second)
	cut := time.Now()
	if _, err := docker.NetworkDisconnect(ctx, net.ID, client.NetworkDisconnectOptions{Container: victim.GetContainerID(), Force: true}); err != nil {
		t.Fatal(err)
	}
	t.Logf("t=%v: disconnected %s (leader of %s) from the network, after %d events acknowledged",
		cut.Sub(fleetStart).Round(time.Millisecond), leader, streams.EventStream, f.acked())
	readiness := watchReady(ctx, guard, 4*time.Second)
	away, cancel := context.WithTimeout(ctx, 3*time.Second)
	if info, err := streamInfo(away, js, streams.EventStream); err == nil {
		t.Logf("t=%v: %s led by %s while %s is away", time.Since(fleetStart).Round(time.Millisecond), streams.EventStream, info.Cluster.Leader, leader)
	} else {
		t.Logf("t=%v: %s's info while %s is away: %v", time.Since(fleetStart).Round(time.Millisecond), streams.EventStream, leader, err)
	}
	cancel()
	if _, err := docker.NetworkConnect(ctx, net.ID, client.NetworkConnectOptions{
		Container: victim.GetContainerID(), EndpointConfig: &network.EndpointSettings{Aliases: []string{leader}},
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("t=%v: reconnected %s; guard-consumer's /readyz meanwhile: %s", time.Since(fleetStart).Round(time.Millisecond), leader, readiness)
	if err := <-fleetDone; err != nil {
		t.Fatal(err)
	}
	t.Logf("t=%v: fleet done: %d events, %d publishes retried", time.Since(fleetStart).Round(time.Millisecond), len(f.events), f.retries)
	healed := waitHealed(t, ctx, js)
	t.Logf("t=%v: %s led by %s, its replicas current", time.Since(fleetStart).Round(time.Millisecond), streams.EventStream, healed.Cluster.Leader)

	// Every acknowledged event is stored, at the sequence it was acked with.
	f.checkStored(t, ctx, js)
	// Every call gets exactly one verdict, in call order.
	control := waitVerdicts(t, ctx, js, f)
	checkVerdicts(t, f, control)

	// The reference: a fresh guard-consumer on fresh state, no fault.
	stopGuard(t, ctx, guard)
	reset(t, ctx, js)
	startGuardContainer(t, ctx, net, "guard-2", secrets.Guard)
	clean := waitVerdicts(t, ctx, js, f)
	t.Logf("%s; %v in all", natstest.SameDecisionsStored(t, natstest.Records(control), natstest.Records(clean)), time.Since(begin).Round(time.Second))
}

// dumpGoroutines makes the Go program in c print every goroutine's stack
// into its log, and exit: what a stalled guard-consumer was waiting on.
func dumpGoroutines(c *testcontainers.DockerContainer) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	docker, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return
	}
	defer docker.Close()
	if _, err := docker.ContainerKill(ctx, c.GetContainerID(), client.ContainerKillOptions{Signal: "QUIT"}); err == nil {
		time.Sleep(2 * time.Second) // for the log consumer to read the dump
	}
}

// dockerOrSkip returns a client of the Docker daemon, skipping the test
// where there is none or the images are not built.
func dockerOrSkip(t *testing.T, ctx context.Context) *testcontainers.DockerClient {
	t.Helper()
	docker, why := dockerCheck(ctx)
	if why != "" {
		t.Skip(why)
	}
	t.Cleanup(func() { _ = docker.Close() })
	return docker
}

// dockerCheck returns a client of the Docker daemon, or why the containers
// test cannot run. It asks the daemon before the images: testcontainers
// makes a client without a daemon behind it when the one it found stops
// answering, and the image lookup would then blame the images. A
// DOCKER_HOST that does not answer is no daemon, although testcontainers
// would go on to try the default socket.
func dockerCheck(ctx context.Context) (*testcontainers.DockerClient, string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if host := os.Getenv("DOCKER_HOST"); host != "" {
		cli, err := client.New(client.FromEnv)
		if err == nil {
			_, err = cli.Ping(ctx, client.PingOptions{})
			_ = cli.Close()
		}
		if err != nil {
			return nil, fmt.Sprintf("no Docker daemon at DOCKER_HOST=%s: %v", host, err)
		}
	}
	docker, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Sprintf("no Docker daemon: %v", err)
	}
	if _, err := docker.Ping(ctx, client.PingOptions{}); err != nil {
		_ = docker.Close()
		return nil, fmt.Sprintf("no Docker daemon at %s: %v", docker.DaemonHost(), err)
	}
	for _, image := range []string{natsImage, guardImage} {
		_, err := docker.ImageInspect(ctx, image)
		switch {
		case err == nil:
			continue
		case client.IsErrConnectionFailed(err):
			_ = docker.Close()
			return nil, fmt.Sprintf("no Docker daemon at %s: %v", docker.DaemonHost(), err)
		}
		_ = docker.Close()
		return nil, fmt.Sprintf("image %s is not built (run deploy/build.sh): %v", image, err)
	}
	return docker, ""
}

// TestDockerCheckWithoutDaemon points DOCKER_HOST at daemons that do not
// exist: the containers test must say there is no Docker daemon, naming
// the host, not that its images are not built. It asks no daemon.
func TestDockerCheckWithoutDaemon(t *testing.T) {
	for _, host := range []string{
		"unix://" + filepath.Join(t.TempDir(), "docker.sock"), // no socket
		"tcp://127.0.0.1:1", // nothing listens
	} {
		t.Setenv("DOCKER_HOST", host)
		docker, why := dockerCheck(context.Background())
		t.Logf("DOCKER_HOST=%s: %s", host, why)
		if docker != nil {
			_ = docker.Close()
		}
		if !strings.Contains(why, "no Docker daemon at DOCKER_HOST="+host) || strings.Contains(why, "not built") {
			t.Errorf("DOCKER_HOST=%s: the test would skip with %q; want it to say there is no Docker daemon there", host, why)
		}
	}
}

// containerSecrets makes a deployment as compose's auth-init does, for
// servers named nats-1..3 and reached at 127.0.0.1 from the test, and
// returns the directories of each process's files.
func containerSecrets(t *testing.T) auth.Setup {
	t.Helper()
	root := t.TempDir()
	s := auth.Setup{Dir: filepath.Join(root, "private"), Hosts: []string{"nats-1", "nats-2", "nats-3"}, Tenant: containersTenant,
		Server: filepath.Join(root, "nats"), Guard: filepath.Join(root, "guard"), Agent: filepath.Join(root, "agent"), Operator: filepath.Join(root, "operator")}
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	return s
}

// files returns the files of dir, to be copied into a container's dir to.
// The copies belong to root and are readable by the container's user.
func files(t *testing.T, dir, to string) []testcontainers.ContainerFile {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []testcontainers.ContainerFile
	for _, e := range entries {
		out = append(out, testcontainers.ContainerFile{HostFilePath: filepath.Join(dir, e.Name()), ContainerFilePath: to + "/" + e.Name(), FileMode: 0o644})
	}
	return out
}

// startCluster starts nats-1, nats-2 and nats-3 from the shipped image and
// config, with the server files in authDir (auth.conf, TLS).
func startCluster(t *testing.T, ctx context.Context, net *testcontainers.DockerNetwork, authDir string) []*testcontainers.DockerContainer {
	t.Helper()
	nodes := make([]*testcontainers.DockerContainer, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("nats-%d", i+1)
			nodes[i], errs[i] = testcontainers.Run(ctx, natsImage,
				tcnetwork.WithNetwork([]string{name}, net),
				testcontainers.WithEnv(map[string]string{
					"SERVER_NAME":    name,
					"ROUTES":         "[nats://route:" + routePassword + "@nats-1:6222, nats://route:" + routePassword + "@nats-2:6222, nats://route:" + routePassword + "@nats-3:6222]",
					"ROUTE_PASSWORD": routePassword,
					// One network, the test's: routes and monitoring on it.
					"CLUSTER_LISTEN": "0.0.0.0:6222",
					"MONITOR_LISTEN": "0.0.0.0:8222",
				}),
				testcontainers.WithFiles(files(t, authDir, "/etc/nats/auth")...),
				testcontainers.WithExposedPorts("4222/tcp", "8222/tcp"),
				testcontainers.WithWaitStrategy(wait.ForLog("Server is ready").WithStartupTimeout(60*time.Second)))
		}()
	}
	wg.Wait()
	for i, n := range nodes {
		if n != nil {
			t.Cleanup(func() { _ = n.Terminate(context.Background()) })
		}
		if errs[i] != nil {
			t.Fatalf("nats-%d: %v", i+1, errs[i])
		}
	}
	return nodes
}

// startGuardContainer starts guard-consumer as the deploy files run it,
// with the credentials and CA in authDir, and waits until its /readyz answers
// 200.
func startGuardContainer(t *testing.T, ctx context.Context, net *testcontainers.DockerNetwork, name, authDir string) *testcontainers.DockerContainer {
	t.Helper()
	logs := &lineLog{}
	c, err := testcontainers.Run(ctx, guardImage,
		tcnetwork.WithNetwork([]string{name}, net),
		testcontainers.WithFiles(files(t, authDir, "/auth/guard")...),
		testcontainers.WithCmd(
			"-nats-url=tls://nats-1:4222,tls://nats-2:4222,tls://nats-3:4222",
			"-creds=/auth/guard/guard-consumer.creds", "-tls-ca=/auth/guard/ca.pem",
			"-replicas=3", fmt.Sprintf("-partitions=%d", containerPartitions), "-ack-wait=2s",
			"-http=0.0.0.0:8280", "-profile=production",
			"-nats-monitor=http://nats-1:8222,http://nats-2:8222,http://nats-3:8222"),
		testcontainers.WithExposedPorts("8280/tcp"),
		testcontainers.WithLogConsumers(logs),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/readyz").WithPort("8280/tcp").WithStartupTimeout(90*time.Second)))
	if c != nil {
		t.Cleanup(func() {
			if t.Failed() {
				dumpGoroutines(c)
				t.Logf("%s's log:\n%s", name, logs)
			}
			_ = c.Terminate(context.Background())
		})
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, l := range logs.lines() {
		if strings.Contains(l, "production") {
			t.Logf("%s: %s", name, l)
		}
	}
	return c
}

// stopGuard stops a guard-consumer container with SIGTERM.
func stopGuard(t *testing.T, ctx context.Context, c *testcontainers.DockerContainer) {
	t.Helper()
	timeout := 20 * time.Second
	if err := c.Stop(ctx, &timeout); err != nil {
		t.Fatal(err)
	}
}

// reset deletes what guard-consumer derived from the events: its
// consumers, the run state and the control stream.
func reset(t *testing.T, ctx context.Context, js jetstream.JetStream) {
	t.Helper()
	for p := range containerPartitions {
		if err := js.DeleteConsumer(ctx, streams.EventStream, streams.ConsumerName(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := js.DeleteKeyValue(ctx, streams.RunsBucket); err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, streams.ControlStream); err != nil {
		t.Fatal(err)
	}
}

// watchReady polls a guard-consumer's /readyz for d and summarises the
// answers it got, in order, without repeats.
func watchReady(ctx context.Context, c *testcontainers.DockerContainer, d time.Duration) string {
	base, err := c.PortEndpoint(ctx, "8280/tcp", "http")
	if err != nil {
		return err.Error()
	}
	client := &http.Client{Timeout: time.Second}
	var seen []string
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		answer := "unreachable"
		if resp, err := client.Get(base + "/readyz"); err == nil {
			answer = resp.Status
			resp.Body.Close()
		}
		if len(seen) == 0 || seen[len(seen)-1] != answer {
			seen = append(seen, answer)
		}
	}
	return strings.Join(seen, " → ")
}

func streamInfo(ctx context.Context, js jetstream.JetStream, name string) (*jetstream.StreamInfo, error) {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.Info(ctx)
}

// waitHealed waits until AGENT_EVENTS has a leader and every replica is
// current again.
func waitHealed(t *testing.T, ctx context.Context, js jetstream.JetStream) *jetstream.StreamInfo {
	t.Helper()
	var info *jetstream.StreamInfo
	natstest.Eventually(t, time.Minute, func() error {
		var err error
		if info, err = streamInfo(ctx, js, streams.EventStream); err != nil {
			return err
		}
		if info.Cluster == nil || info.Cluster.Leader == "" {
			return errors.New("no leader")
		}
		for _, r := range info.Cluster.Replicas {
			if !r.Current || r.Offline {
				return fmt.Errorf("replica %s is not current", r.Name)
			}
		}
		return nil
	})
	return info
}

// nodeIndex maps a server name, nats-N, to its index.
func nodeIndex(t *testing.T, name string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(name, "nats-%d", &n); err != nil || n < 1 || n > 3 {
		t.Fatalf("stream leader %q is not one of nats-1..3", name)
	}
	return n - 1
}

// fleetEvent is one event of the scripted fleet.
type fleetEvent struct {
	subject, msgID string
	data           []byte
	run, call      string // call is set on call events
	runSeq         int64  // the event's sequence within its run
	seq            uint64 // the stream sequence it was acknowledged with
}

// scriptedFleet is a fleet: runs of steps, calls and results, no leases
// (no timers, so a re-run sees exactly the same events). One run in 8
// repeats the same call and is stopped; its later calls are stale.
type scriptedFleet struct {
	runs    [][]*fleetEvent
	events  []*fleetEvent
	calls   map[string]map[int64]bool // run → the sequences of its call events
	retries int

	mu    sync.Mutex
	nAcks int
}

func newScriptedFleet(runs, calls int) *scriptedFleet {
	f := &scriptedFleet{runs: make([][]*fleetEvent, runs), calls: map[string]map[int64]bool{}}
	for r := range runs {
		id := fmt.Sprintf("ct-%d", r)
		var seq int64
		add := func(ev event.Event) {
			seq++
			ev.V, ev.Tenant, ev.Run, ev.Seq, ev.TS = event.Version, containersTenant, id, seq, 1767225600000+seq*100
			subject, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
			if err != nil {
				panic(err)
			}
			fe := &fleetEvent{subject: subject, msgID: fmt.Sprintf("%s.%s.%d", ev.Tenant, id, seq), data: event.AppendEvent(nil, &ev), run: id, runSeq: seq}
			if ev.Kind == event.KindCall {
				fe.call = ev.Call
				if f.calls[id] == nil {
					f.calls[id] = map[int64]bool{}
				}
				f.calls[id][seq] = true
			}
			f.runs[r] = append(f.runs[r], fe)
			f.events = append(f.events, fe)
		}
		add(event.Event{Kind: event.KindRunStart, Agent: "fleet", Workspace: "/work/" + id})
		for k := range calls {
			if k%10 == 0 {
				add(event.Event{Kind: event.KindStep, Step: int64(k / 10), Turn: 1, TokensIn: 1000, TokensOut: 200, Context: 10_000, Window: 128_000})
			}
			call, args := fmt.Sprintf("c%d", k+1), fmt.Sprintf(`{"path":"src/file%d.go"}`, k)
			if r%8 == 3 {
				args = `{"path":"config.yaml"}`
			}
			add(event.Event{Kind: event.KindCall, Call: call, Tool: "read_file", Args: args})
			add(event.Event{Kind: event.KindResult, Call: call, Out: id + "/" + call + ": ok"})
		}
		add(event.Event{Kind: event.KindRunEnd, Status: event.StatusCompleted})
	}
	return f
}

// answersCall reports whether d is a verdict on one of the fleet's calls.
func (f *scriptedFleet) answersCall(d *event.Decision) bool {
	return d.Kind.IsVerdict() && f.calls[d.Run][d.Seq]
}

// nCalls is the number of calls in the fleet.
func (f *scriptedFleet) nCalls() int {
	n := 0
	for _, c := range f.calls {
		n += len(c)
	}
	return n
}

func (f *scriptedFleet) acked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nAcks
}

// publish publishes the runs side by side, one event of each per tick,
// and waits for every event of a tick to be acknowledged, republishing
// (same Nats-Msg-Id) what fails, before the next: each run's events are
// stored in order, whatever the cluster goes through.
func (f *scriptedFleet) publish(ctx context.Context, js jetstream.JetStream, tick time.Duration) error {
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; ; i++ {
		var batch []*fleetEvent
		for _, run := range f.runs {
			if i < len(run) {
				batch = append(batch, run[i])
			}
		}
		if len(batch) == 0 {
			return nil
		}
		for len(batch) > 0 {
			if time.Now().After(deadline) {
				return fmt.Errorf("fleet: %d events of tick %d not acknowledged within 2 minutes", len(batch), i)
			}
			futures := make([]jetstream.PubAckFuture, len(batch))
			for j, e := range batch {
				m := &nats.Msg{Subject: e.subject, Data: e.data, Header: nats.Header{jetstream.MsgIDHeader: []string{e.msgID}}}
				futures[j], _ = js.PublishMsgAsync(m, jetstream.WithRetryAttempts(0))
			}
			var failed []*fleetEvent
			for j, fut := range futures {
				if fut == nil {
					failed = append(failed, batch[j])
					continue
				}
				select {
				case ack := <-fut.Ok():
					batch[j].seq = ack.Sequence
					f.mu.Lock()
					f.nAcks++
					f.mu.Unlock()
				case <-fut.Err():
					failed = append(failed, batch[j])
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if len(failed) > 0 {
				f.retries += len(failed)
				time.Sleep(100 * time.Millisecond)
			}
			batch = failed
		}
		time.Sleep(tick)
	}
}

// checkStored checks that every acknowledged event is in AGENT_EVENTS at
// its sequence, unchanged.
func (f *scriptedFleet) checkStored(t *testing.T, ctx context.Context, js jetstream.JetStream) {
	t.Helper()
	stream, err := js.Stream(ctx, streams.EventStream)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, e := range f.events {
		var m *jetstream.RawStreamMsg
		natstest.Eventually(t, 30*time.Second, func() error {
			m, err = stream.GetMsg(ctx, e.seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return nil // lost, not unavailable
			}
			return err
		})
		if err != nil || string(m.Data) != string(e.data) || m.Header.Get(jetstream.MsgIDHeader) != e.msgID {
			lost++
			if lost <= 3 {
				t.Errorf("acknowledged event %s (seq %d) is not stored: %v", e.msgID, e.seq, err)
			}
		}
	}
	t.Logf("%d of %d acknowledged events stored at their sequence (%d lost)", len(f.events)-lost, len(f.events), lost)
}

// readStream reads every message of a stream with an ordered consumer.
func readStream(ctx context.Context, js jetstream.JetStream, name string) ([]*jetstream.RawStreamMsg, error) {
	info, err := streamInfo(ctx, js, name)
	if err != nil || info.State.Msgs == 0 {
		return nil, err
	}
	cons, err := js.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, err
	}
	var out []*jetstream.RawStreamMsg
	for uint64(len(out)) < info.State.Msgs {
		batch, err := cons.Fetch(500, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return nil, err
		}
		got := 0
		for m := range batch.Messages() {
			meta, err := m.Metadata()
			if err != nil {
				return nil, err
			}
			got++
			out = append(out, &jetstream.RawStreamMsg{Subject: m.Subject(), Sequence: meta.Sequence.Stream, Header: m.Headers(), Data: m.Data()})
			if meta.Sequence.Stream >= info.State.LastSeq {
				return out, nil
			}
		}
		if err := batch.Error(); err != nil {
			return nil, err
		}
		if got == 0 {
			return nil, errors.New("the stream stopped delivering before its last message")
		}
	}
	return out, nil
}

// waitVerdicts waits until the control stream holds as many verdicts on
// the fleet's calls as there are calls, and returns the control stream.
func waitVerdicts(t *testing.T, ctx context.Context, js jetstream.JetStream, f *scriptedFleet) []*jetstream.RawStreamMsg {
	t.Helper()
	start, calls := time.Now(), f.nCalls()
	var control []*jetstream.RawStreamMsg
	for {
		var err error
		control, err = readStream(ctx, js, streams.ControlStream)
		verdicts := 0
		for _, m := range control {
			var d event.Decision
			if event.DecodeDecision(m.Data, &d) == nil && f.answersCall(&d) {
				verdicts++
			}
		}
		if err == nil && verdicts >= calls {
			t.Logf("%d verdicts for %d calls after %v (%d decisions in all)", verdicts, calls, time.Since(start).Round(time.Millisecond), len(control))
			return control
		}
		if time.Since(start) > 90*time.Second {
			t.Fatalf("after 90s, %d verdicts for %d calls (%v)", verdicts, calls, err)
		}
		time.Sleep(time.Second)
	}
}

// checkVerdicts checks that each call event has exactly one verdict, and
// that each run's verdicts come in the order of its calls.
func checkVerdicts(t *testing.T, f *scriptedFleet, control []*jetstream.RawStreamMsg) {
	t.Helper()
	got := map[string][]string{} // run → calls, in the order of their verdicts
	kinds := map[event.DecisionKind]int{}
	for _, m := range control {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Fatal(err)
		}
		if f.answersCall(&d) {
			got[d.Run] = append(got[d.Run], d.Call)
			kinds[d.Kind]++
		}
	}
	for _, run := range f.runs {
		var want []string
		for _, e := range run {
			if e.call != "" {
				want = append(want, e.call)
			}
		}
		id := run[0].run
		if strings.Join(got[id], " ") != strings.Join(want, " ") {
			t.Errorf("run %s: verdicts for calls %v, want exactly one for each of %v, in order", id, got[id], want)
		}
	}
	t.Logf("verdicts by kind: %d allow, %d stop, %d stale, %d reject, %d defer",
		kinds[event.Allow], kinds[event.Stop], kinds[event.Stale], kinds[event.Reject], kinds[event.Defer])
}

// lineLog keeps a container's log lines.
type lineLog struct {
	mu sync.Mutex
	l  []string
}

func (l *lineLog) Accept(entry testcontainers.Log) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, strings.TrimRight(string(entry.Content), "\n"))
}

func (l *lineLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

func (l *lineLog) String() string { return strings.Join(l.lines(), "\n") }
