package client

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Client publishes the runs of one tenant. It is safe for concurrent use.
type Client struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	tenant string
	opts   options
	stats  counters
	// provisioned is set once a stream has stored an event of this
	// client's: "no responders" after that means the server is coming
	// back, not that guard-consumer never provisioned it.
	provisioned atomic.Bool
	// nonce ends the Nats-Msg-Id of every event: 128 random bits from
	// crypto/rand, so another tenant cannot guess it and cannot make the
	// stream drop an event as a duplicate by publishing its id first. (A
	// NUID would not do: nats.go draws its inboxes from the same sequence.)
	nonce string
}

// New returns a client for tenant over nc.
func New(nc *nats.Conn, tenant string, opts ...Option) (*Client, error) {
	if err := event.CheckID(tenant); err != nil {
		return nil, fmt.Errorf("client: tenant id %q: %w", tenant, err)
	}
	o := defaults()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return &Client{nc: nc, js: js, tenant: tenant, opts: o, nonce: rand.Text()}, nil
}

// Tenant returns the client's tenant.
func (c *Client) Tenant() string { return c.tenant }

// RunSpec describes a run at its start.
type RunSpec struct {
	// Agent is the agent class, which selects the run's policy.
	Agent string
	// Lease is how long the run may go without a heartbeat before the
	// guard cancels it; 0 means no lease (or the policy's default).
	Lease time.Duration
	// ManualHeartbeat turns off the heartbeats the client otherwise sends
	// three times per lease; the agent then calls Heartbeat itself.
	ManualHeartbeat bool
	// Workspace is the absolute root the run works in.
	Workspace string
	// Pattern is the policy pattern the run acts under.
	Pattern string
	// Tools and Docs declare the run's tools and documents with their JSON
	// Schemas.
	Tools, Docs []event.Schema
	// Outputs are the paths the run promises to produce.
	Outputs []string
}

// Start subscribes to the run's decisions and publishes its start. The run
// id must be unique within the tenant.
func (c *Client) Start(ctx context.Context, runID string, spec RunSpec) (*Run, error) {
	filter, err := streams.RunControlFilter(c.tenant, runID)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if spec.Lease != 0 && spec.Lease < event.MinLease*time.Millisecond {
		return nil, fmt.Errorf("client: lease %v; want 0 or at least %v", spec.Lease, event.MinLease*time.Millisecond)
	}
	r := newRun(c, runID, filter)
	if r.sub, err = c.nc.Subscribe(filter, r.receive); err != nil {
		return nil, fmt.Errorf("client: subscribing to %s: %w", filter, err)
	}
	go r.watch(c.nc.StatusChanged(nats.CONNECTED, nats.RECONNECTING, nats.CLOSED))
	start := &event.Event{
		Kind: event.KindRunStart, Agent: spec.Agent, Lease: spec.Lease.Milliseconds(), Workspace: spec.Workspace,
		Pattern: spec.Pattern, Tools: spec.Tools, Docs: spec.Docs, Outputs: spec.Outputs,
	}
	if err := r.publish(ctx, start, nil); err != nil {
		_ = r.Close()
		return nil, err
	}
	if spec.Lease > 0 && !spec.ManualHeartbeat {
		go r.heartbeat(spec.Lease / 3)
	}
	return r, nil
}

// reconnects returns how many times the connection has reconnected.
func (c *Client) reconnects() uint64 { return c.nc.Stats().Reconnects }
