package streams

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// LeaderRequest is what LeaderGet asks for: the message at stream sequence
// Seq, the first on NextFor at or after Seq, or the last on LastFor.
type LeaderRequest struct {
	Seq     uint64 `json:"seq,omitempty"`
	NextFor string `json:"next_by_subj,omitempty"`
	LastFor string `json:"last_by_subj,omitempty"`
}

// LeaderGet asks stream's leader, through the message get API only the
// leader answers, for the message req names. A direct get may be answered
// by a replica that has not yet applied a message whose publish the leader
// acknowledged; the leader's answer is never behind. A message that is not
// there is jetstream.ErrMsgNotFound.
func LeaderGet(ctx context.Context, nc *nats.Conn, stream string, req LeaderRequest) (*jetstream.RawStreamMsg, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	reply, err := nc.RequestWithContext(ctx, MsgGetSubject(stream), body)
	if err != nil {
		return nil, fmt.Errorf("streams: asking %s's leader: %w", stream, err)
	}
	var resp struct {
		Error   *jetstream.APIError `json:"error"`
		Message *struct {
			Subject string    `json:"subject"`
			Seq     uint64    `json:"seq"`
			Header  []byte    `json:"hdrs"`
			Data    []byte    `json:"data"`
			Time    time.Time `json:"time"`
		} `json:"message"`
	}
	if err := json.Unmarshal(reply.Data, &resp); err != nil {
		return nil, fmt.Errorf("streams: asking %s's leader: %w", stream, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
		return nil, jetstream.ErrMsgNotFound
	case resp.Error != nil:
		return nil, fmt.Errorf("streams: asking %s's leader: %w", stream, resp.Error)
	case resp.Message == nil:
		return nil, fmt.Errorf("streams: %s's leader answered with no message and no error", stream)
	}
	m := &jetstream.RawStreamMsg{Subject: resp.Message.Subject, Sequence: resp.Message.Seq, Data: resp.Message.Data, Time: resp.Message.Time}
	if len(resp.Message.Header) > 0 {
		if m.Header, err = nats.DecodeHeadersMsg(resp.Message.Header); err != nil {
			return nil, fmt.Errorf("streams: the headers of %s #%d in %s: %w", m.Subject, m.Sequence, stream, err)
		}
	}
	return m, nil
}
