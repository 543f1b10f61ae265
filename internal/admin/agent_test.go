package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// consumerReplay is replay as it was before it read by direct get: an
// ordered consumer per request, left to expire. The tests hold the new
// replies to its.
func consumerReplay(ctx context.Context, js jetstream.JetStream, filter string, after uint64, since int64) (agentapi.DecisionsReply, error) {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}}
	switch {
	case after > 0:
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, after+1
	case since > 0:
		start := time.UnixMilli(since)
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &start
	}
	reply := agentapi.DecisionsReply{Decisions: []agentapi.Stored{}, Now: time.Now().UnixMilli()}
	oc, err := js.OrderedConsumer(ctx, streams.ControlStream, cfg)
	if err != nil {
		return reply, err
	}
	batch, err := oc.FetchNoWait(maxReplayDecisions)
	if err != nil {
		return reply, err
	}
	size := 0
	for m := range batch.Messages() {
		md, err := m.Metadata()
		if err != nil {
			return reply, err
		}
		if size += len(m.Data()); size > maxReplayBytes && len(reply.Decisions) > 0 {
			reply.More = true
			break
		}
		reply.Decisions = append(reply.Decisions, agentapi.Stored{
			Seq: md.Sequence.Stream, Subject: m.Subject(), MsgID: m.Headers().Get(jetstream.MsgIDHeader), Data: m.Data(),
		})
		reply.More = md.NumPending > 0
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		return reply, err
	}
	return reply, nil
}

// setup starts a server with guardstream's streams and a connection.
func setup(t *testing.T) (*nats.Conn, jetstream.JetStream, func() *nats.Conn) {
	t.Helper()
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	natstest.Provision(t, js, nil)
	return nc, js, func() *nats.Conn { c, _ := natstest.Connect(t, s); return c }
}

// publish stores a decision of kind about tenant's run with a payload of
// size bytes, and returns its sequence.
func publish(t *testing.T, js jetstream.JetStream, tenant, run string, k event.DecisionKind, size int) uint64 {
	t.Helper()
	subj, err := streams.ControlSubject(tenant, run, k)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i)
	}
	m := nats.NewMsg(subj)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("%s-%s-%d-%d", tenant, run, time.Now().UnixNano(), size))
	ack, err := js.PublishMsg(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

func consumers(t *testing.T, js jetstream.JetStream) int {
	t.Helper()
	st, err := js.Stream(context.Background(), streams.ControlStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Consumers
}

// TestReplayMatchesConsumer: the decisions endpoint's reads by direct get
// answer what the ordered consumers answered, for after, since, the
// count limit and the byte limit, and page through a run whole.
func TestReplayMatchesConsumer(t *testing.T) {
	nc, js, _ := setup(t)
	gets, err := newDirectGets(nc)
	if err != nil {
		t.Fatal(err)
	}
	defer gets.close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var seqs []uint64 // of acme/r's decisions
	var times []int64 // ms, before some of them
	for i := range 600 {
		if i%100 == 0 {
			time.Sleep(3 * time.Millisecond)
			times = append(times, time.Now().UnixMilli())
			time.Sleep(3 * time.Millisecond)
		}
		k := []event.DecisionKind{event.Allow, event.Output, event.Advise}[i%3]
		seqs = append(seqs, publish(t, js, "acme", "r", k, 10+i%50))
		if i%7 == 0 {
			publish(t, js, "acme", "other", event.Allow, 20) // not the run's
			publish(t, js, "rival", "r", event.Allow, 20)    // not the tenant's
		}
	}
	// Payloads over the byte limit together, and one over it alone.
	for _, size := range []int{100 << 10, 200 << 10, 150 << 10, 120 << 10, 600 << 10, 300 << 10, 10} {
		seqs = append(seqs, publish(t, js, "acme", "r", event.Output, size))
	}
	times = append(times, time.Now().UnixMilli()+60_000) // after all

	filter, _ := streams.RunControlFilter("acme", "r")
	type query struct {
		after uint64
		since int64
	}
	queries := []query{{}, {after: seqs[len(seqs)-1]}, {after: seqs[len(seqs)-1] + 1000}, {after: 1 << 62}}
	for i := 0; i < len(seqs); i += 37 {
		queries = append(queries, query{after: seqs[i]}, query{after: seqs[i] + 1})
	}
	for _, i := range []int{595, 598, 599, 600, 601, 602, 603, 604, 605} {
		queries = append(queries, query{after: seqs[i]})
	}
	for _, ms := range times {
		queries = append(queries, query{since: ms}, query{after: seqs[3], since: ms})
	}
	queries = append(queries, query{since: -5})
	for _, q := range queries {
		got, err := replay(ctx, gets, filter, q.after, q.since)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		want, err := consumerReplay(ctx, js, filter, q.after, q.since)
		if err != nil {
			t.Fatalf("%+v: the consumer: %v", q, err)
		}
		got.Now, want.Now = 0, 0
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("after %d since %d: %d decisions (more %v) from %v; the consumer: %d (more %v) from %v",
				q.after, q.since, len(got.Decisions), got.More, first(got), len(want.Decisions), want.More, first(want))
		}
	}

	// Paging through the run with More gets every decision once, in
	// order, in replies within the limits.
	var read []uint64
	replies := 0
	for after, more := uint64(0), true; more; replies++ {
		r, err := replay(ctx, gets, filter, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, d := range r.Decisions {
			read, after, size = append(read, d.Seq), d.Seq, size+len(d.Data)
		}
		if len(r.Decisions) == 0 || len(r.Decisions) > maxReplayDecisions || (size > maxReplayBytes && len(r.Decisions) > 1) {
			t.Fatalf("a reply of %d decisions, %d bytes", len(r.Decisions), size)
		}
		more = r.More
	}
	if !slices.Equal(read, seqs) {
		t.Fatalf("paging read %d decisions; want %d", len(read), len(seqs))
	}
	t.Logf("%d queries answered as the consumers did; %d decisions in %d replies", len(queries), len(read), replies)
}

func first(r agentapi.DecisionsReply) uint64 {
	if len(r.Decisions) == 0 {
		return 0
	}
	return r.Decisions[0].Seq
}

// TestDecisionsLeaveNoConsumers: many requests to the decisions endpoint
// leave GUARD_CONTROL with no consumer, where the ordered consumer of each
// stayed for its inactive threshold.
func TestDecisionsLeaveNoConsumers(t *testing.T) {
	nc, js, connect := setup(t)
	svc, err := ServeAgents(nc, js, nil, "0.0.0")
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	for i := range 300 {
		publish(t, js, "acme", "r", event.Allow, 100+i)
	}
	agent := connect()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	const requests, callers = 1000, 8
	var failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for c := range callers {
		wg.Go(func() {
			for i := c; i < requests; i += callers {
				r, err := agentapi.GetDecisions(ctx, agent, "acme", agentapi.DecisionsRequest{Run: "r", After: uint64(250 + i%50)})
				if err != nil || len(r.Decisions) == 0 {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d requests failed", n, requests)
	}
	if n := consumers(t, js); n != 0 {
		t.Fatalf("GUARD_CONTROL has %d consumers after %d requests; want 0", n, requests)
	}
	// What the consumers cost: the same reads made as before.
	filter, _ := streams.RunControlFilter("acme", "r")
	for i := range 50 {
		if _, err := consumerReplay(ctx, js, filter, uint64(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d requests in %v (%.0f/s), 0 consumers left; 50 reads by ordered consumer left %d",
		requests, took.Round(time.Millisecond), float64(requests)/took.Seconds(), consumers(t, js))
}

// TestStalledTenantDoesNotBlockOthers: while a tenant's requests are held
// up in its workers and queue, another tenant's are answered at once; the
// stalled tenant holds no more than its share of workers, and beyond its
// queue is refused busy rather than queued.
func TestStalledTenantDoesNotBlockOthers(t *testing.T) {
	nc, js, connect := setup(t)
	release := make(chan struct{})
	var held atomic.Int64
	svc, err := serveAgents(nc, nil, "0.0.0", func(ctx context.Context, tenant, _ string) {
		if tenant == "slow" {
			held.Add(1)
			defer held.Add(-1)
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	publish(t, js, "slow", "r", event.Allow, 10)
	publish(t, js, "fast", "r", event.Allow, 10)
	agent := connect()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// More of the slow tenant's requests than its workers and queue take.
	const sent = tenantInFlight + tenantQueued + 20
	var answered, busy atomic.Int64
	var wg sync.WaitGroup
	for range sent {
		wg.Go(func() {
			_, err := agentapi.GetDecisions(ctx, agent, "slow", agentapi.DecisionsRequest{Run: "r"})
			switch {
			case errors.Is(err, agentapi.ErrBusy):
				busy.Add(1)
			case err == nil:
				answered.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	natstest.Eventually(t, 10*time.Second, func() error {
		if n := held.Load(); n != tenantInFlight || busy.Load() < sent-tenantInFlight-tenantQueued {
			return fmt.Errorf("%d of the slow tenant's requests in workers, %d refused busy", n, busy.Load())
		}
		return nil
	})

	var worst time.Duration
	for range 50 {
		start := time.Now()
		r, err := agentapi.GetDecisions(ctx, agent, "fast", agentapi.DecisionsRequest{Run: "r"})
		if err != nil || len(r.Decisions) != 1 {
			t.Fatalf("the other tenant: %d decisions, %v", len(r.Decisions), err)
		}
		worst = max(worst, time.Since(start))
	}
	if worst > 2*time.Second {
		t.Errorf("the other tenant's requests took up to %v", worst)
	}
	if n := held.Load(); n != tenantInFlight {
		t.Errorf("the slow tenant holds %d workers; want %d", n, tenantInFlight)
	}
	close(release)
	wg.Wait()
	if answered.Load()+busy.Load() != sent || busy.Load() != sent-tenantInFlight-tenantQueued {
		t.Errorf("of %d requests of the stalled tenant, %d answered, %d busy; want %d busy", sent, answered.Load(), busy.Load(), sent-tenantInFlight-tenantQueued)
	}
	t.Logf("the other tenant's 50 requests took at most %v while the stalled one held %d workers and %d queued; %d refused busy",
		worst.Round(time.Microsecond), tenantInFlight, tenantQueued, busy.Load())
}

// TestFloodDoesNotDelayOthers: a tenant keeping hundreds of requests in
// flight, as fast as they are answered, delays another tenant's requests
// by about one turn of the workers, not by its whole backlog.
func TestFloodDoesNotDelayOthers(t *testing.T) {
	nc, js, connect := setup(t)
	svc, err := ServeAgents(nc, js, nil, "0.0.0")
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	for range 256 {
		publish(t, js, "flood", "r", event.Allow, 512)
	}
	publish(t, js, "calm", "r", event.Allow, 10)

	// The flood: a window of requests kept full, each answered with 256
	// decisions.
	flooder := connect()
	const window = 200
	inbox := flooder.NewRespInbox()
	answers := make(chan *nats.Msg, 4*window)
	sub, err := flooder.ChanSubscribe(inbox+".*", answers)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	subj, _ := agentapi.Subject("flood", agentapi.Decisions)
	body, _ := json.Marshal(agentapi.DecisionsRequest{Run: "r"})
	stop := make(chan struct{})
	var flooded, refused atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		n := 0
		send := func() {
			n++
			_ = flooder.PublishRequest(subj, inbox+"."+strconv.Itoa(n), body)
		}
		for range window {
			send()
		}
		for {
			select {
			case m := <-answers:
				if m.Header.Get("Nats-Service-Error-Code") != "" {
					refused.Add(1)
				}
				flooded.Add(1)
				send()
			case <-time.After(5 * time.Second):
				return // the window was lost
			case <-stop:
				return
			}
		}
	})

	calm := connect()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	time.Sleep(200 * time.Millisecond) // the flood's backlog builds up
	var lat []time.Duration
	for range 100 {
		start := time.Now()
		r, err := agentapi.GetDecisions(ctx, calm, "calm", agentapi.DecisionsRequest{Run: "r"})
		if err != nil || len(r.Decisions) != 1 {
			t.Fatalf("the calm tenant: %d decisions, %v", len(r.Decisions), err)
		}
		lat = append(lat, time.Since(start))
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if flooded.Load() < window {
		t.Fatalf("the flood got %d answers", flooded.Load())
	}
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	if p99 > 2*time.Second {
		t.Errorf("the calm tenant's p99 is %v under the flood", p99)
	}
	if n := consumers(t, js); n != 0 {
		t.Errorf("%d consumers left", n)
	}
	t.Logf("flood: %d requests answered (%d refused busy) with %d in flight; calm tenant: p50 %v, p99 %v, max %v",
		flooded.Load(), refused.Load(), window, p50.Round(time.Microsecond), p99.Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
}
