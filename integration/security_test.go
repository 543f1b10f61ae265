package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/service"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// attempt is one row of the permission matrix.
type attempt struct {
	who, what, subject string
	// try makes the attempt; a permission violation on subject denies it.
	try func() error
}

// TestPermissionMatrix starts guard-consumer on an embedded server with
// the shipped permission model (deploy/security/nats-server.conf, with the
// auth.conf 'guard-consumer creds init' makes, TLS for clients) and tries, as an
// agent of another tenant and as a dashboard, each thing issue 11 lists.
// Each attempt is denied, and changes nothing, while the victim tenant's
// run keeps getting its verdicts.
func TestPermissionMatrix(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if err := auth.Init(dir); err != nil {
		t.Fatal(err)
	}
	ca, cert, key := testTLS(t, dir)
	conf, store := shippedServerConfig(t, dir, cert, key)
	sc, oc := streams.DefaultConfig(), objectstore.DefaultConfig()
	sc.Partitions, sc.Memory, oc.Memory = 4, true, true
	svc, err := service.Start(ctx, service.Config{
		Embedded: embedded.Options{Name: "matrix", StoreDir: store, ConfigFile: conf},
		Streams:  sc, Outputs: oc, Runner: runner.DefaultConfig(sc.Partitions), Policy: guard.DefaultPolicy(),
		Security: service.Security{Client: auth.Client{Creds: filepath.Join(dir, "creds", "guard-consumer.creds")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	issue := func(role auth.Role, name string) nats.Option {
		b, err := auth.Issue(dir, role, name, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, string(role)+"-"+name+".creds")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return nats.UserCredentials(p)
	}
	url, tlsCA := svc.URL(), nats.RootCAs(ca)
	acme := dial(t, url, "acme", issue(auth.RoleAgent, "acme"), nats.CustomInboxPrefix(agentapi.InboxPrefix("acme")), tlsCA)
	evil := dial(t, url, "evil", issue(auth.RoleAgent, "evil"), nats.CustomInboxPrefix(agentapi.InboxPrefix("evil")), tlsCA)
	dash := dial(t, url, "dashboard", issue(auth.RoleDashboard, "wallboard"), tlsCA)
	op := dial(t, url, "operator", nats.UserCredentials(filepath.Join(dir, "creds", "operator.creds")), tlsCA)
	if _, err := nats.Connect(url, nats.Timeout(2*time.Second)); err == nil {
		t.Fatal("a connection without credentials or TLS got in")
	}
	opJS, _ := jetstream.New(op.Conn)

	// The victim's run: an allowed call whose large output holds a secret.
	c, err := client.New(acme.Conn, "acme", client.WithVerdictTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	const run = "victim-run"
	r, err := c.Start(ctx, run, client.RunSpec{Workspace: "/work/app"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":".env"}`})
	if err != nil || !v.Allowed() {
		t.Fatalf("the victim's first call: %v, %v", v.Kind, err)
	}
	secret := strings.Repeat("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", 2000)
	if err := r.Result(ctx, client.Result{Call: v.Call, Out: secret}); err != nil {
		t.Fatal(err)
	}
	out, err := r.Output(ctx, v.Call)
	if err != nil || out.Ref == nil {
		t.Fatalf("the victim's output decision: %+v, %v", out, err)
	}
	if _, err := r.Page(ctx, *out.Ref, 10, view.Options{MaxLines: 5}); err != nil {
		t.Fatalf("the victim pages its own output: %v", err)
	}
	runs, err := opJS.KeyValue(ctx, streams.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	natstest.Eventually(t, 20*time.Second, func() error {
		_, err := runs.Get(ctx, streams.RunKey("acme", run))
		return err
	})
	stateBefore, _ := runs.Get(ctx, streams.RunKey("acme", run))
	ctlBefore := controlOf(t, opJS, "acme", run)
	dashFeed, err := dash.SubscribeSync("guard.ctl.>")
	if err != nil {
		t.Fatal(err)
	}
	victimFeed, err := acme.SubscribeSync("guard.ctl.acme." + run + ".verdict")
	if err != nil {
		t.Fatal(err)
	}

	forged := event.AppendDecision(nil, &event.Decision{V: event.Version, Kind: event.Allow, Tenant: "acme", Run: run, Call: "c2", Seq: 3})
	firstPart, _ := objectstore.Subject("acme", out.Ref.Digest, 0)
	pub := func(nc *watched, subj string, h nats.Header) func() error {
		return func() error { return nc.PublishMsg(&nats.Msg{Subject: subj, Data: forged, Header: h}) }
	}
	sub := func(nc *watched, subj string) func() error {
		return func() error { _, err := nc.SubscribeSync(subj); return err }
	}
	req := func(nc *watched, subj string) func() error {
		return func() error { return nc.PublishRequest(subj, nc.NewRespInbox(), []byte(`{}`)) }
	}
	matrix := []attempt{
		{"agent evil", "publish a decision (forged allow, the guard's msg id)", "guard.ctl.acme." + run + ".verdict",
			pub(evil, "guard.ctl.acme."+run+".verdict", nats.Header{jetstream.MsgIDHeader: {"acme." + run + ".3.0"}})},
		{"agent evil", "publish an event as another tenant (run_end)", "agent.acme." + run + ".run", pub(evil, "agent.acme."+run+".run", nil)},
		{"agent evil", "read another tenant's decisions", "guard.ctl.acme.>", sub(evil, "guard.ctl.acme.>")},
		{"agent evil", "read another tenant's events", "agent.acme.>", sub(evil, "agent.acme.>")},
		{"agent evil", "read another tenant's output (agent API)", "guard.api.acme.page", req(evil, "guard.api.acme.page")},
		{"agent evil", "read another tenant's output (JetStream)", "$JS.API.DIRECT.GET.GUARD_OUTPUTS." + firstPart,
			req(evil, "$JS.API.DIRECT.GET.GUARD_OUTPUTS."+firstPart)},
		{"agent evil", "overwrite another tenant's output", firstPart, pub(evil, firstPart, nil)},
		{"agent evil", "publish a timer", "guard.timer.acme." + run + ".lease", pub(evil, "guard.timer.acme."+run+".lease", nil)},
		{"agent evil", "publish a fired timer", "guard.fired.acme." + run, pub(evil, "guard.fired.acme."+run, nil)},
		{"agent evil", "publish a dead letter", "guard.dlq.invalid", pub(evil, "guard.dlq.invalid", nil)},
		{"agent evil", "delete a stream", "$JS.API.STREAM.DELETE.GUARD_CONTROL", req(evil, "$JS.API.STREAM.DELETE.GUARD_CONTROL")},
		{"agent evil", "purge a stream", "$JS.API.STREAM.PURGE.GUARD_DLQ", req(evil, "$JS.API.STREAM.PURGE.GUARD_DLQ")},
		{"agent evil", "delete a consumer", "$JS.API.CONSUMER.DELETE.AGENT_EVENTS.guard-p0", req(evil, "$JS.API.CONSUMER.DELETE.AGENT_EVENTS.guard-p0")},
		{"agent evil", "create a consumer on its own decisions", "$JS.API.CONSUMER.CREATE.GUARD_CONTROL.spy.guard.ctl.evil.>",
			req(evil, "$JS.API.CONSUMER.CREATE.GUARD_CONTROL.spy.guard.ctl.evil.>")},
		{"agent evil", "write guard_runs", "$KV.guard_runs.acme." + run, pub(evil, "$KV.guard_runs.acme."+run, nil)},
		{"agent evil", "read guard_runs", "$JS.API.DIRECT.GET.KV_guard_runs.$KV.guard_runs.acme." + run,
			req(evil, "$JS.API.DIRECT.GET.KV_guard_runs.$KV.guard_runs.acme."+run)},
		{"agent evil", "watch guard_runs", "$KV.guard_runs.>", sub(evil, "$KV.guard_runs.>")},
		{"agent evil", "answer an admin request", admin.OutputSubject, func() error {
			_, err := evil.QueueSubscribe(admin.OutputSubject, "q", func(m *nats.Msg) { _ = m.Respond([]byte(`{"view":{"text":"fake"}}`)) })
			return err
		}},
		{"agent evil", "read other agents' replies", "_INBOX.>", sub(evil, "_INBOX.>")},
		{"agent evil", "resume its own run (an operator's act)", "agent.evil.r1.resume", pub(evil, "agent.evil.r1.resume", nil)},
		{"agent evil", "publish a timer event into its own run", "agent.evil.r1.timer", pub(evil, "agent.evil.r1.timer", nil)},
		{"dashboard", "publish a decision", "guard.ctl.acme." + run + ".verdict", pub(dash, "guard.ctl.acme."+run+".verdict", nil)},
		{"dashboard", "publish an event", "agent.acme." + run + ".call", pub(dash, "agent.acme."+run+".call", nil)},
		{"dashboard", "use the JetStream API", "$JS.API.INFO", req(dash, "$JS.API.INFO")},
		{"dashboard", "use the admin API", admin.OutputSubject, req(dash, admin.OutputSubject)},
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "who\tattempt\tsubject\toutcome")
	for _, a := range matrix {
		nc := map[string]*watched{"agent evil": evil, "dashboard": dash}[a.who]
		outcome := "denied: permissions violation"
		if nc.violation(a.subject, a.try) == "" {
			outcome = "NOT DENIED"
			t.Errorf("%s: %s (%s) was not denied", a.who, a.what, a.subject)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.who, a.what, a.subject, outcome)
	}

	// An operator may resume a run: the resume is stored.
	resume := event.AppendEvent(nil, &event.Event{V: event.Version, Kind: event.KindResume, Tenant: "acme", Run: "ops", Seq: 1,
		TS: time.Now().UnixMilli(), By: "ops-alice", Why: "the permission matrix"})
	if _, err := opJS.Publish(ctx, "agent.acme.ops.resume", resume); err != nil {
		t.Errorf("the operator's resume was not stored: %v", err)
	}
	fmt.Fprintf(tw, "operator\tresume a run\tagent.acme.ops.resume\tstored\n")

	// What permissions cannot refuse, and must come to nothing.
	if _, err := agentapi.GetPage(ctx, evil.Conn, "evil", agentapi.PageRequest{Ref: *out.Ref}); !errors.Is(err, agentapi.ErrNotFound) {
		t.Errorf("evil pages acme's output under its own tenant: %v, want ErrNotFound", err)
	}
	fmt.Fprintf(tw, "agent evil\tread another tenant's output by its digest, as its own\tguard.api.evil.page\trefused: not found\n")
	evilJS, _ := jetstream.New(evil.Conn)
	for _, h := range []struct {
		what   string
		header nats.Header
	}{
		{"purge AGENT_EVENTS with a rollup header", nats.Header{jetstream.MsgRollup: {jetstream.MsgRollupAll}}},
		{"schedule an event into another tenant's run", nats.Header{jetstream.ScheduleHeader: {"@at 2020-01-01T00:00:00Z"},
			jetstream.ScheduleTargetHeader: {"agent.acme." + run + ".call"}}},
	} {
		_, err := evilJS.PublishMsg(ctx, &nats.Msg{Subject: "agent.evil.r1.hb", Header: h.header})
		if err == nil {
			t.Errorf("%s: AGENT_EVENTS stored it", h.what)
		}
		fmt.Fprintf(tw, "agent evil\t%s\tagent.evil.r1.hb\trefused by the stream: %v\n", h.what, err)
	}
	// The stream deduplicates on Nats-Msg-Id across subjects: an event
	// carrying the id of the victim's next one would make the stream drop
	// it, were the id guessable. The victim's next calls below get their
	// verdicts.
	for seq := 4; seq <= 8; seq++ {
		id := fmt.Sprintf("acme.%s.%d", run, seq)
		if _, err := evilJS.PublishMsg(ctx, &nats.Msg{Subject: "agent.evil.r1.hb", Header: nats.Header{jetstream.MsgIDHeader: {id}}}); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Fprintf(tw, "agent evil\tpre-empt the msg ids of the victim's next events\tagent.evil.r1.hb\tno effect: the client's ids end in a random nonce\n")
	for _, reply := range []string{"$KV.guard_runs.acme." + run, "guard.ctl.acme." + run + ".verdict"} {
		if err := evil.PublishRequest("agent.evil.r1.hb", reply, []byte("x")); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(tw, "agent evil\thave JetStream ack its event on another tenant's subject\t%s\tlands in AGENTS, never in GUARD (below)\n", reply)
	}
	// A reply subject on another of GUARD's imports: the reply to a
	// request through one import must not come back in through another,
	// into the victim's events or outputs.
	evilPart, _ := objectstore.Subject("evil", out.Ref.Digest, 0)
	for _, pr := range [][2]string{
		{"agent.evil.r1.hb", firstPart},
		{"guard.api.evil.page", "agent.acme." + run + ".call"},
		{"guard.api.evil.page", firstPart},
		{evilPart, "agent.acme." + run + ".call"},
		{evilPart, firstPart},
	} {
		if err := evil.PublishRequest(pr[0], pr[1], []byte("{}")); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(tw, "agent evil\thave a request through one import answered into another, the victim's\t%s → %s\tdropped: nothing reaches GUARD (below)\n", pr[0], pr[1])
	}
	_ = evil.Flush()
	tw.Flush()
	t.Log("permission matrix:\n" + strings.ReplaceAll(table.String(), strings.TrimPrefix(out.Ref.Digest, "sha256:"), "<digest>"))

	// The server's reply to the reply-subject trick reaches the victim's
	// live subscription at most, as a JetStream ack: not a decision.
	for m, err := victimFeed.NextMsg(time.Second); err == nil; m, err = victimFeed.NextMsg(200 * time.Millisecond) {
		var d event.Decision
		if event.DecodeDecision(m.Data, &d) != nil {
			t.Logf("the victim's subscription saw a non-decision, which its client ignores: %.60q", m.Data)
		}
	}
	// The guard keeps working: the victim's next calls get their verdicts.
	v2, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":"main.go"}`})
	if err != nil || !v2.Allowed() || v2.Synthetic {
		t.Fatalf("the victim's next call: %v (synthetic %v), %v", v2.Kind, v2.Synthetic, err)
	}
	v3, err := r.Call(ctx, client.Call{Tool: "bash", Args: `{"command":"rm -rf / --no-preserve-root"}`})
	if err != nil || v3.Kind != event.Reject || v3.Synthetic {
		t.Fatalf("the victim's rm -rf /: %v (synthetic %v), %v; want the guard's reject", v3.Kind, v3.Synthetic, err)
	}
	t.Logf("the victim's run goes on: %s → %s, rm -rf / → %s %s", v2.Call, v2.Kind, v3.Kind, v3.Reason)

	// Nothing the attempts did stuck.
	for _, s := range []string{streams.EventStream, streams.ControlStream, streams.DeadLetterStream, streams.TimerStream, objectstore.Stream} {
		if _, err := opJS.Stream(ctx, s); err != nil {
			t.Errorf("stream %s: %v", s, err)
		}
	}
	if _, err := opJS.Consumer(ctx, streams.EventStream, streams.ConsumerName(0)); err != nil {
		t.Errorf("consumer %s: %v", streams.ConsumerName(0), err)
	}
	if after, err := runs.Get(ctx, streams.RunKey("acme", run)); err != nil || after.Revision() < stateBefore.Revision() {
		t.Errorf("guard_runs %s: %v", streams.RunKey("acme", run), err)
	} else if bytes.HasPrefix(after.Value(), []byte(`{"stream"`)) {
		t.Errorf("guard_runs holds a JetStream ack for the victim's run: %s", after.Value())
	}
	if outs, err := opJS.Stream(ctx, objectstore.Stream); err != nil {
		t.Error(err)
	} else if last, err := outs.GetLastMsgForSubject(ctx, firstPart); err != nil || !bytes.HasPrefix([]byte(secret), last.Data) ||
		last.Header.Get(objectstore.HeaderSize) != strconv.Itoa(len(secret)) {
		t.Errorf("the victim's output part %s was replaced: %v", firstPart, err)
	}
	for _, m := range natstest.Messages(t, opJS, streams.EventStream) {
		var ev event.Event
		if strings.Contains(m.Subject, ".acme.") && (event.DecodeEvent(m.Data, &ev) != nil || ev.Tenant != "acme") {
			t.Errorf("AGENT_EVENTS holds a message on the victim's subject its agent did not send: %s %.60q", m.Subject, m.Data)
		}
	}
	ctlAfter := controlOf(t, opJS, "acme", run)
	for _, m := range ctlAfter[len(ctlBefore):] {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil || d.Tenant != "acme" || !strings.HasPrefix(m.Header.Get(jetstream.MsgIDHeader), "acme."+run+".") {
			t.Errorf("GUARD_CONTROL holds a message guard-consumer did not write: %s %v %.80q", m.Subject, m.Header, m.Data)
		}
	}
	for i := range 10 {
		reply, err := op.Request(admin.OutputSubject, []byte(fmt.Sprintf(`{"tenant":"acme","run":%q,"call":%q,"max_lines":1}`, run, v.Call)), 5*time.Second)
		var page admin.OutputReply
		if err != nil || json.Unmarshal(reply.Data, &page) != nil || page.Ref.Digest != out.Ref.Digest {
			t.Fatalf("admin request %d: %v %s", i, err, reply.Data)
		}
	}
	n := 0
	for _, err := dashFeed.NextMsg(time.Second); err == nil; _, err = dashFeed.NextMsg(100 * time.Millisecond) {
		n++
	}
	if n == 0 {
		t.Error("the dashboard saw no decisions")
	}
	t.Logf("the operator's 10 admin requests were all answered by guard-consumer; the dashboard read %d decisions; GUARD_CONTROL holds %d decisions of the run, all guard-consumer's", n, len(ctlAfter))
}

// shippedServerConfig writes deploy/security/nats-server.conf into dir,
// with a free loopback port, the test's store and TLS files and no
// monitoring port, and returns its path and the store directory.
func shippedServerConfig(t *testing.T, dir, cert, key string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "deploy", "security", "nats-server.conf"))
	if err != nil {
		t.Fatal(err)
	}
	conf, store := string(b), filepath.Join(dir, "jetstream")
	for _, r := range [][2]string{
		{"listen: 0.0.0.0:4222", "listen: 127.0.0.1:-1"},
		{`"tls/server-cert.pem"`, strconv.Quote(cert)},
		{`"tls/server-key.pem"`, strconv.Quote(key)},
		{`"/data/jetstream"`, strconv.Quote(store)},
		{"http: 127.0.0.1:8222", ""},
	} {
		if !strings.Contains(conf, r[0]) {
			t.Fatalf("deploy/security/nats-server.conf no longer has %q", r[0])
		}
		conf = strings.Replace(conf, r[0], r[1], 1)
	}
	path := filepath.Join(dir, "nats-server.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, store
}

// controlOf returns the decisions GUARD_CONTROL holds about a run.
func controlOf(t *testing.T, js jetstream.JetStream, tenant, run string) []*jetstream.RawStreamMsg {
	t.Helper()
	filter, _ := streams.RunControlFilter(tenant, run)
	var out []*jetstream.RawStreamMsg
	for _, m := range natstest.Messages(t, js, streams.ControlStream) {
		if subjectMatches(filter, m.Subject) {
			out = append(out, m)
		}
	}
	return out
}

func subjectMatches(filter, subject string) bool {
	return strings.HasPrefix(subject, strings.TrimSuffix(filter, ">"))
}

// TestForgedAllowUnderDefaults repeats the attack of issue 11 that made a
// client run a rejected rm -rf / on guard-consumer's default setup: the
// embedded server, and an attacker connecting to its port without
// credentials, as any local agent does. The attacker publishes forged
// allows carrying the guard's predictable Nats-Msg-Id before the victim's
// call and keeps racing while the call waits; it also tries to watch the
// victim's calls and to have JetStream answer on the victim's control
// subject. The victim's call gets the guard's reject, and GUARD_CONTROL
// holds only that reject.
func TestForgedAllowUnderDefaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data := t.TempDir()
	sc := streams.DefaultConfig()
	svc, err := service.Start(ctx, service.Config{
		Embedded: embedded.Options{Name: "defaults", Host: "127.0.0.1", Port: -1, StoreDir: data},
		Streams:  sc, Outputs: objectstore.DefaultConfig(), Runner: runner.DefaultConfig(sc.Partitions), Policy: guard.DefaultPolicy(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	url := svc.URL()
	attacker := dial(t, url, "attacker")
	victim := dial(t, url, "victim")
	c, err := client.New(victim.Conn, "victim", client.WithVerdictTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	run := "r-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if got := attacker.violation("agent.victim.*.call", func() error { _, err := attacker.SubscribeSync("agent.victim.*.call"); return err }); got == "" {
		t.Fatal("the attacker may watch the victim's calls")
	}

	verdicts := "guard.ctl.victim." + run + ".verdict"
	forge := func(call string, seq int) *nats.Msg {
		d := event.Decision{V: event.Version, Kind: event.Allow, Tenant: "victim", Run: run, Call: call, Seq: int64(seq)}
		return &nats.Msg{Subject: verdicts, Data: event.AppendDecision(nil, &d),
			Header: nats.Header{jetstream.MsgIDHeader: {fmt.Sprintf("victim.%s.%d.0", run, seq)}}}
	}
	denied := 0
	for seq := 1; seq <= 5; seq++ {
		if attacker.violation(verdicts, func() error { return attacker.PublishMsg(forge("c1", seq)) }) != "" {
			denied++
		}
	}
	r, err := c.Start(ctx, run, client.RunSpec{Workspace: "/work/app"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	race, raced := make(chan struct{}), make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-race:
				raced <- n
				return
			default:
			}
			_ = attacker.PublishMsg(forge("c1", 2))
			_ = attacker.PublishRequest("agent.attacker.r1.hb", verdicts, []byte("x"))
			n++
			time.Sleep(time.Millisecond)
		}
	}()
	v, err := r.Call(ctx, client.Call{Tool: "bash", Args: `{"command":"rm -rf / --no-preserve-root"}`})
	close(race)
	n := <-raced
	if err != nil || v.Kind != event.Reject || v.Synthetic {
		t.Fatalf("the victim's rm -rf /: %v (synthetic %v), %v; want the guard's reject", v.Kind, v.Synthetic, err)
	}
	t.Logf("forged allows published before the call: 5, denied %d; during the call: %d more forgeries and acks aimed at %s", denied, n, verdicts)
	t.Logf("the victim's call %s: %s %s: %s", v.Call, v.Kind, v.Reason, v.Msg)
	if denied != 5 {
		t.Errorf("%d of 5 forged allows were not denied", 5-denied)
	}

	key, err := nats.NkeyOptionFromSeed(filepath.Join(data, auth.OperatorKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	op := dial(t, url, "operator", key)
	js, _ := jetstream.New(op.Conn)
	var found []string
	for _, m := range controlOf(t, js, "victim", run) {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Errorf("GUARD_CONTROL holds something that is not a decision on %s: %.80q", m.Subject, m.Data)
			continue
		}
		if d.Call == v.Call && d.Kind.IsVerdict() {
			found = append(found, fmt.Sprintf("%s (%s)", d.Kind, m.Header.Get(jetstream.MsgIDHeader)))
		}
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], "reject") {
		t.Fatalf("GUARD_CONTROL holds %v for the call; want the guard's reject alone", found)
	}
	t.Logf("GUARD_CONTROL holds for the call: %v", found)
}

// TestAnonymousTenantPinned: with -anonymous-tenant, connections without
// credentials act for that tenant alone, with no setup on the agent's side.
func TestAnonymousTenantPinned(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc, oc := streams.DefaultConfig(), objectstore.DefaultConfig()
	sc.Partitions, sc.Memory, oc.Memory = 2, true, true
	svc, err := service.Start(ctx, service.Config{
		Embedded: embedded.Options{Name: "pinned", Host: "127.0.0.1", Port: -1, StoreDir: t.TempDir()},
		Streams:  sc, Outputs: oc, Runner: runner.DefaultConfig(sc.Partitions), Policy: guard.DefaultPolicy(),
		Security: service.Security{AnonymousTenant: "acme"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	nc := dial(t, svc.URL(), "local agent")
	c, err := client.New(nc.Conn, "acme", client.WithVerdictTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Start(ctx, "pinned-run", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":"a.go"}`}); err != nil || !v.Allowed() || v.Synthetic {
		t.Fatalf("acme's call: %v (synthetic %v), %v", v.Kind, v.Synthetic, err)
	}
	for _, subj := range []string{"agent.other.r1.call", "guard.ctl.other.>"} {
		do := func() error { return nc.Publish(subj, []byte("x")) }
		if strings.HasSuffix(subj, ">") {
			do = func() error { _, err := nc.SubscribeSync(subj); return err }
		}
		if nc.violation(subj, do) == "" {
			t.Errorf("an anonymous connection pinned to acme reached %s", subj)
		}
	}
}
