package agentapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// Endpoint names: the last token of their subjects.
const (
	Page      = "page"
	Decisions = "decisions"
)

const prefix = "guard.api."

// Subject returns the subject of endpoint op for tenant.
func Subject(tenant, op string) (string, error) {
	if err := event.CheckID(tenant); err != nil {
		return "", fmt.Errorf("agentapi: tenant id %q: %w", tenant, err)
	}
	return prefix + tenant + "." + op, nil
}

// Filter returns the filter matching every endpoint of tenant.
func Filter(tenant string) string { return prefix + tenant + ".*" }

// Pattern returns the subject op is served on, for every tenant.
func Pattern(op string) string { return prefix + "*." + op }

// TenantOf returns the tenant of an endpoint subject.
func TenantOf(subject string) (string, error) {
	rest, ok := strings.CutPrefix(subject, prefix)
	i := strings.LastIndexByte(rest, '.')
	if !ok || i < 0 || event.CheckID(rest[:i]) != nil {
		return "", fmt.Errorf("agentapi: %q is not an API subject", subject)
	}
	return rest[:i], nil
}

// InboxPrefix returns the inbox prefix an agent of tenant connects with
// (nats.CustomInboxPrefix): with credentials, an agent may subscribe only
// to inboxes under it, so it receives its own replies and no one else's.
func InboxPrefix(tenant string) string { return "_INBOX." + tenant }

// PageRequest asks for a page of an output the tenant stored.
type PageRequest struct {
	// Ref names the output, as a result or an output decision does.
	Ref event.OutputRef `json:"ref"`
	// Offset is the page's first line, counting from 0.
	Offset int64 `json:"offset,omitempty"`
	// MaxLines and MaxBytes cap the page; 0 takes the defaults (500 lines,
	// 32 KiB).
	MaxLines int `json:"max_lines,omitempty"`
	MaxBytes int `json:"max_bytes,omitempty"`
	// Workspace, when set, makes paths under it workspace-relative.
	Workspace string `json:"workspace,omitempty"`
}

// View is a page of an output.
type View struct {
	Text  string           `json:"text"`
	Trunc event.Truncation `json:"trunc"`
	Cut   bool             `json:"cut,omitempty"`
}

// DecisionsRequest asks for the decisions about a run of the tenant that
// GUARD_CONTROL holds after a sequence.
type DecisionsRequest struct {
	Run string `json:"run"`
	// After is the GUARD_CONTROL sequence to start after: the last
	// Stored.Seq of a reply, to read on.
	After uint64 `json:"after,omitempty"`
	// Since, when After is 0, starts at the first decision stored at or
	// after this time, in milliseconds since the Unix epoch by the NATS
	// server's clock; 0 starts at the run's first decision.
	Since int64 `json:"since,omitempty"`
}

// DecisionsReply holds decisions in the order GUARD_CONTROL stored them.
type DecisionsReply struct {
	Decisions []Stored `json:"decisions"`
	// More says the reply was cut short: ask again after the last Seq.
	More bool `json:"more,omitempty"`
	// Now is guard-consumer's clock when it replied, in milliseconds since
	// the Unix epoch, for a client to judge its own clock's skew.
	Now int64 `json:"now"`
}

// Stored is a decision as GUARD_CONTROL holds it.
type Stored struct {
	// Seq is its sequence in GUARD_CONTROL.
	Seq uint64 `json:"seq"`
	// Subject is its control subject.
	Subject string `json:"subject"`
	// MsgID is its Nats-Msg-Id header.
	MsgID string `json:"msg_id"`
	// Data is its msgpack payload (base64 in JSON); event.DecodeDecision
	// reads it.
	Data []byte `json:"data"`
}

// Errors the calls return, wrapped with the service's description.
var (
	// ErrNotFound: no such output, or no such run.
	ErrNotFound = errors.New("agentapi: not found")
	// ErrBadRequest: the request is malformed.
	ErrBadRequest = errors.New("agentapi: bad request")
	// ErrService: guard-consumer failed to serve the request.
	ErrService = errors.New("agentapi: service error")
	// ErrBusy: guard-consumer did not serve the request because too
	// many of the tenant's requests (CodeTooMany), or of all tenants'
	// (CodeBusy), were waiting: try again later.
	ErrBusy = errors.New("agentapi: busy")
)

// Error codes the endpoints answer with.
const (
	CodeBadRequest = "400"
	CodeNotFound   = "404"
	CodeInternal   = "500"
	// CodeTooMany: too many of the tenant's requests are waiting.
	CodeTooMany = "429"
	// CodeBusy: too many requests are waiting, or guard-consumer is
	// stopping.
	CodeBusy = "503"
)

// GetPage asks guard-consumer, over nc, for a page of an output tenant
// stored.
func GetPage(ctx context.Context, nc *nats.Conn, tenant string, req PageRequest) (View, error) {
	var v View
	return v, call(ctx, nc, tenant, Page, req, &v)
}

// GetDecisions asks guard-consumer, over nc, for decisions about a run of
// tenant.
func GetDecisions(ctx context.Context, nc *nats.Conn, tenant string, req DecisionsRequest) (DecisionsReply, error) {
	var r DecisionsReply
	return r, call(ctx, nc, tenant, Decisions, req, &r)
}

func call(ctx context.Context, nc *nats.Conn, tenant, op string, req, reply any) error {
	subj, err := Subject(tenant, op)
	if err != nil {
		return err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	m, err := nc.RequestWithContext(ctx, subj, body)
	if err != nil {
		return fmt.Errorf("agentapi: %s: %w", subj, err)
	}
	if code := m.Header.Get(micro.ErrorCodeHeader); code != "" {
		desc := m.Header.Get(micro.ErrorHeader)
		switch code {
		case CodeNotFound:
			return fmt.Errorf("%w: %s", ErrNotFound, desc)
		case CodeBadRequest:
			return fmt.Errorf("%w: %s", ErrBadRequest, desc)
		case CodeTooMany, CodeBusy:
			return fmt.Errorf("%w: %s %s", ErrBusy, code, desc)
		}
		return fmt.Errorf("%w: %s %s", ErrService, code, desc)
	}
	if err := json.Unmarshal(m.Data, reply); err != nil {
		return fmt.Errorf("agentapi: %s replied with something other than JSON: %w", subj, err)
	}
	return nil
}
