package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// AgentName is the name of the agent API service.
const AgentName = "guardstream-agent-api"

// Limits of one decisions reply: well under the server's payload limit
// once base64 has grown the payloads by a third.
const (
	maxReplayDecisions = 256
	maxReplayBytes     = 512 << 10
)

// requestTimeout bounds the serving of one request.
const requestTimeout = 30 * time.Second

// ServeAgents starts the agent API (package agentapi) on nc. Stop it with
// Stop. Each endpoint takes the tenant from the request's subject, which
// only the tenant's agents may publish on.
//
// Requests are served concurrently by a pool of workers, fairly among
// tenants (pool), and read GUARD_CONTROL through its direct get API
// (directGets): no request creates a consumer, so none leaves one behind.
func ServeAgents(nc *nats.Conn, _ jetstream.JetStream, outputs *objectstore.Store, version string) (micro.Service, error) {
	return serveAgents(nc, outputs, version, nil)
}

// serveAgents is ServeAgents with a function every worker calls before
// serving a request, for tests to hold a tenant's requests up.
func serveAgents(nc *nats.Conn, outputs *objectstore.Store, version string, before func(ctx context.Context, tenant, op string)) (micro.Service, error) {
	gets, err := newDirectGets(nc)
	if err != nil {
		return nil, err
	}
	h := &agentHandler{nc: nc, gets: gets, outputs: outputs, pool: newPool(agentWorkers), before: before}
	var once sync.Once
	release := func() {
		once.Do(func() {
			h.pool.stop()
			gets.close()
		})
	}
	svc, err := micro.AddService(nc, micro.Config{
		Name:        AgentName,
		Version:     version,
		Description: "guardstream guard-consumer API for agents: pages of stored outputs, decisions to catch up on",
		DoneHandler: func(micro.Service) { release() }, // the connection closed
	})
	if err != nil {
		release()
		return nil, err
	}
	for op, f := range map[string]serveFunc{agentapi.Page: h.page, agentapi.Decisions: h.decisions} {
		if err := svc.AddEndpoint(op, h.queue(op, f), micro.WithEndpointSubject(agentapi.Pattern(op))); err != nil {
			_ = svc.Stop()
			release()
			return nil, err
		}
	}
	return agentService{Service: svc, release: release}, nil
}

// agentService stops the workers and the direct gets with the service.
type agentService struct {
	micro.Service
	release func()
}

// Stop stops taking requests, refuses those waiting, and waits for those
// being served.
func (s agentService) Stop() error {
	err := s.Service.Stop()
	s.release()
	return err
}

type agentHandler struct {
	nc      *nats.Conn
	gets    *directGets
	outputs *objectstore.Store
	pool    *pool
	before  func(ctx context.Context, tenant, op string)
}

// serveFunc serves the request body of tenant, returning the reply to
// encode as JSON or an error (apiError for a code other than 500).
type serveFunc func(ctx context.Context, tenant string, body []byte) (any, error)

// apiError is an error answered with its code.
type apiError struct{ code, desc string }

func (e *apiError) Error() string { return e.desc }

func badRequest(err error) error { return &apiError{agentapi.CodeBadRequest, err.Error()} }

// queue returns the endpoint's handler, which runs on the endpoint's one
// subscription: it only checks the subject and queues the request for the
// workers, or refuses it at once (pool).
func (h *agentHandler) queue(op string, serve serveFunc) micro.HandlerFunc {
	return func(req micro.Request) {
		tenant, err := agentapi.TenantOf(req.Subject())
		if err == nil && len(req.Data()) > maxRequestBytes {
			err = fmt.Errorf("agentapi: the request is over %d bytes", maxRequestBytes)
		}
		if err != nil {
			_ = req.Error(agentapi.CodeBadRequest, err.Error(), nil)
			return
		}
		// The workers answer on the reply subject, not through req: micro
		// reads what req answered as the handler returns.
		reply, body := req.Reply(), req.Data()
		err = h.pool.add(job{
			tenant: tenant,
			at:     time.Now(),
			run: func(ctx context.Context, waited time.Duration) {
				if waited > maxWait {
					h.respond(reply, nil, errBusy)
					return
				}
				ctx, cancel := context.WithTimeout(ctx, requestTimeout)
				defer cancel()
				if h.before != nil {
					h.before(ctx, tenant, op)
				}
				v, err := serve(ctx, tenant, body)
				h.respond(reply, v, err)
			},
			refuse: func(err error) { h.respond(reply, nil, err) },
		})
		if err != nil {
			code, desc := errorCode(err)
			_ = req.Error(code, desc, nil)
		}
	}
}

// errorCode returns the code and description err is answered with.
func errorCode(err error) (string, string) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae.code, ae.desc
	case errors.Is(err, errTenantBusy):
		return agentapi.CodeTooMany, err.Error()
	case errors.Is(err, errBusy), errors.Is(err, errStopped):
		return agentapi.CodeBusy, err.Error()
	}
	return agentapi.CodeInternal, err.Error()
}

// respond answers on reply, as micro.Request's RespondJSON and Error do.
func (h *agentHandler) respond(reply string, v any, err error) {
	if reply == "" {
		return
	}
	m := &nats.Msg{Subject: reply}
	if err == nil {
		if m.Data, err = json.Marshal(v); err != nil {
			err = fmt.Errorf("agentapi: encoding the reply: %w", err)
		}
	}
	if err != nil {
		code, desc := errorCode(err)
		m.Data, m.Header = nil, nats.Header{micro.ErrorHeader: []string{desc}, micro.ErrorCodeHeader: []string{code}}
	}
	_ = h.nc.PublishMsg(m)
}

func (h *agentHandler) page(ctx context.Context, tenant string, body []byte) (any, error) {
	var q agentapi.PageRequest
	if err := json.Unmarshal(body, &q); err != nil {
		return nil, badRequest(err)
	}
	v, err := h.outputs.Page(ctx, tenant, q.Ref, q.Offset, view.Options{MaxLines: q.MaxLines, MaxBytes: q.MaxBytes, Workspace: q.Workspace})
	switch {
	case errors.Is(err, objectstore.ErrNotFound):
		return nil, &apiError{agentapi.CodeNotFound, err.Error()}
	case errors.Is(err, objectstore.ErrInvalidDigest):
		return nil, badRequest(err)
	case err != nil:
		return nil, err
	}
	return agentapi.View{Text: v.Text, Trunc: v.Trunc, Cut: v.Cut}, nil
}

func (h *agentHandler) decisions(ctx context.Context, tenant string, body []byte) (any, error) {
	var q agentapi.DecisionsRequest
	if err := json.Unmarshal(body, &q); err != nil {
		return nil, badRequest(err)
	}
	filter, err := streams.RunControlFilter(tenant, q.Run)
	if err != nil {
		return nil, badRequest(err)
	}
	return replay(ctx, h.gets, filter, q.After, q.Since)
}

// replay reads the decisions on filter stored after sequence after, or
// else from time since (ms), up to the limits of one reply: at most
// maxReplayDecisions, and at most maxReplayBytes of payloads unless the
// first alone is more. It asks GUARD_CONTROL for one batch by direct get
// (no consumer), capped by the server at twice maxReplayBytes counting
// subjects and headers too, so that the server stops no earlier than the
// reply's own limit does: the server sends the message that crosses it,
// which tells the reply it has more.
func replay(ctx context.Context, gets *directGets, filter string, after uint64, since int64) (agentapi.DecisionsReply, error) {
	reply := agentapi.DecisionsReply{Decisions: []agentapi.Stored{}, Now: time.Now().UnixMilli()}
	req := directRequest{NextFor: filter, Batch: maxReplayDecisions, MaxBytes: 2 * maxReplayBytes}
	switch {
	case after == math.MaxUint64:
		return reply, nil // nothing can come after it
	case after > 0:
		req.Seq = after + 1
	case since > 0:
		start := time.UnixMilli(since)
		req.StartTime = &start
	}
	msgs, pending, err := gets.get(ctx, streams.ControlStream, req)
	if err != nil {
		return reply, err
	}
	size := 0
	for _, m := range msgs {
		if size += len(m.data); size > maxReplayBytes && len(reply.Decisions) > 0 {
			reply.More = true
			return reply, nil
		}
		reply.Decisions = append(reply.Decisions, agentapi.Stored{
			Seq: m.seq, Subject: m.subject, MsgID: m.header.Get(jetstream.MsgIDHeader), Data: m.data,
		})
	}
	reply.More = pending > 0
	return reply, nil
}
