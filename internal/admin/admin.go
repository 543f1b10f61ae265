package admin

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// Service names.
const (
	Name  = "guardstream-admin"
	Group = "guard.admin"
	// OutputSubject is the subject of the output endpoint.
	OutputSubject = Group + ".output"
)

// OutputRequest asks for a page of the output a call produced.
type OutputRequest struct {
	Tenant   string `json:"tenant"`
	Run      string `json:"run"`
	Call     string `json:"call"`
	Offset   int64  `json:"offset,omitempty"`
	MaxLines int    `json:"max_lines,omitempty"`
}

// OutputReply is the reference to the full output and the requested page.
type OutputReply struct {
	Ref  event.OutputRef `json:"ref"`
	View agentapi.View   `json:"view"`
}

// Serve starts the admin service on nc. Stop it with Stop.
func Serve(nc *nats.Conn, js jetstream.JetStream, outputs *objectstore.Store, version string) (micro.Service, error) {
	svc, err := micro.AddService(nc, micro.Config{
		Name:        Name,
		Version:     version,
		Description: "guardstream guard-consumer admin API",
	})
	if err != nil {
		return nil, err
	}
	h := handler{js: js, outputs: outputs}
	if err := svc.AddGroup(Group).AddEndpoint("output", micro.HandlerFunc(h.output)); err != nil {
		_ = svc.Stop()
		return nil, err
	}
	return svc, nil
}

type handler struct {
	js      jetstream.JetStream
	outputs *objectstore.Store
}

func (h handler) output(req micro.Request) {
	var q OutputRequest
	if err := json.Unmarshal(req.Data(), &q); err != nil {
		_ = req.Error("400", "the request is not JSON of the form {\"tenant\",\"run\",\"call\",\"offset\",\"max_lines\"}: "+err.Error(), nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	data, ref, err := Output(ctx, h.js, h.outputs, q.Tenant, q.Run, q.Call)
	switch {
	case errors.Is(err, objectstore.ErrNotFound):
		_ = req.Error("404", err.Error(), nil)
		return
	case errors.Is(err, ErrBadRequest):
		_ = req.Error("400", err.Error(), nil)
		return
	case err != nil:
		_ = req.Error("500", err.Error(), nil)
		return
	}
	v := view.Of(data, view.Options{MaxLines: q.MaxLines, Offset: q.Offset, Digest: ref.Digest})
	_ = req.RespondJSON(OutputReply{Ref: ref, View: agentapi.View{Text: v.Text, Trunc: v.Trunc, Cut: v.Cut}})
}
