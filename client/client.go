package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"

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
}

// Start subscribes to the run's decisions and publishes its start. The run
// id must be unique within the tenant.
func (c *Client) Start(ctx context.Context, runID string, spec RunSpec) (*Run, error) {
	filter, err := streams.RunControlFilter(c.tenant, runID)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	r := newRun(c, runID)
	if r.sub, err = c.nc.Subscribe(filter, r.receive); err != nil {
		return nil, fmt.Errorf("client: subscribing to %s: %w", filter, err)
	}
	if err := r.publish(ctx, &event.Event{Kind: event.KindRunStart, Agent: spec.Agent}); err != nil {
		_ = r.sub.Unsubscribe()
		return nil, err
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
