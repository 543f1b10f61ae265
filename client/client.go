package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
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

	storeOnce sync.Once
	store     *objectstore.Store
	storeErr  error
}

// outputs returns the guard_outputs store, opened on first use.
func (c *Client) outputs(ctx context.Context) (*objectstore.Store, error) {
	c.storeOnce.Do(func() {
		c.store, c.storeErr = objectstore.Open(ctx, c.js, objectstore.DefaultConfig())
	})
	return c.store, c.storeErr
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
	return &Client{nc: nc, js: js, tenant: tenant, opts: o}, nil
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
	r := newRun(c, runID)
	if r.sub, err = c.nc.Subscribe(filter, r.receive); err != nil {
		return nil, fmt.Errorf("client: subscribing to %s: %w", filter, err)
	}
	start := &event.Event{
		Kind: event.KindRunStart, Agent: spec.Agent, Lease: spec.Lease.Milliseconds(), Workspace: spec.Workspace,
		Pattern: spec.Pattern, Tools: spec.Tools, Docs: spec.Docs, Outputs: spec.Outputs,
	}
	if err := r.publish(ctx, start); err != nil {
		_ = r.sub.Unsubscribe()
		return nil, err
	}
	if spec.Lease > 0 && !spec.ManualHeartbeat {
		go r.heartbeat(spec.Lease / 3)
	}
	return r, nil
}

// publish sends ev, already stamped, and waits for the stream to store it.
func (c *Client) publish(ctx context.Context, ev *event.Event) error {
	subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	msg := nats.NewMsg(subj)
	msg.Data = event.AppendEvent(nil, ev)
	id := ev.Tenant + "." + ev.Run + "." + strconv.FormatInt(ev.Seq, 10)
	if _, err := c.js.PublishMsg(ctx, msg, jetstream.WithMsgID(id)); err != nil {
		if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
			return fmt.Errorf("%w: publishing to %s: %v", ErrNotProvisioned, subj, err)
		}
		return fmt.Errorf("client: publishing %s: %w", ev, err)
	}
	return nil
}
