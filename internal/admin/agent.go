package admin

import (
	"context"
	"encoding/json"
	"errors"
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

// ServeAgents starts the agent API (package agentapi) on nc. Stop it with
// Stop. Each endpoint takes the tenant from the request's subject, which
// only the tenant's agents may publish on.
func ServeAgents(nc *nats.Conn, js jetstream.JetStream, outputs *objectstore.Store, version string) (micro.Service, error) {
	svc, err := micro.AddService(nc, micro.Config{
		Name:        AgentName,
		Version:     version,
		Description: "guardstream guard-consumer API for agents: pages of stored outputs, decisions to catch up on",
	})
	if err != nil {
		return nil, err
	}
	h := agentHandler{js: js, outputs: outputs}
	for op, f := range map[string]micro.HandlerFunc{agentapi.Page: h.page, agentapi.Decisions: h.decisions} {
		if err := svc.AddEndpoint(op, f, micro.WithEndpointSubject(agentapi.Pattern(op))); err != nil {
			_ = svc.Stop()
			return nil, err
		}
	}
	return svc, nil
}

type agentHandler struct {
	js      jetstream.JetStream
	outputs *objectstore.Store
}

// decode reads the request's tenant and JSON body, or answers 400.
func decode(req micro.Request, body any) (string, bool) {
	tenant, err := agentapi.TenantOf(req.Subject())
	if err == nil {
		err = json.Unmarshal(req.Data(), body)
	}
	if err != nil {
		_ = req.Error(agentapi.CodeBadRequest, err.Error(), nil)
		return "", false
	}
	return tenant, true
}

func (h agentHandler) page(req micro.Request) {
	var q agentapi.PageRequest
	tenant, ok := decode(req, &q)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := h.outputs.Page(ctx, tenant, q.Ref, q.Offset, view.Options{MaxLines: q.MaxLines, MaxBytes: q.MaxBytes, Workspace: q.Workspace})
	switch {
	case errors.Is(err, objectstore.ErrNotFound):
		_ = req.Error(agentapi.CodeNotFound, err.Error(), nil)
	case errors.Is(err, objectstore.ErrInvalidDigest):
		_ = req.Error(agentapi.CodeBadRequest, err.Error(), nil)
	case err != nil:
		_ = req.Error(agentapi.CodeInternal, err.Error(), nil)
	default:
		_ = req.RespondJSON(agentapi.View{Text: v.Text, Trunc: v.Trunc, Cut: v.Cut})
	}
}

func (h agentHandler) decisions(req micro.Request) {
	var q agentapi.DecisionsRequest
	tenant, ok := decode(req, &q)
	if !ok {
		return
	}
	filter, err := streams.RunControlFilter(tenant, q.Run)
	if err != nil {
		_ = req.Error(agentapi.CodeBadRequest, err.Error(), nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reply, err := replay(ctx, h.js, filter, q.After, q.Since)
	if err != nil {
		_ = req.Error(agentapi.CodeInternal, err.Error(), nil)
		return
	}
	_ = req.RespondJSON(reply)
}

// replay reads the decisions on filter stored after sequence after, or
// else from time since (ms), up to the limits of one reply.
func replay(ctx context.Context, js jetstream.JetStream, filter string, after uint64, since int64) (agentapi.DecisionsReply, error) {
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
