package objectstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// last returns the last message stored on subj. It asks with a direct
// get, which any current replica may answer, and asks the stream's
// leader when that says there is none: a replica may not yet have
// applied a part whose publish the leader acknowledged, and an agent
// publishes the reference right after that acknowledgement.
func (s *Store) last(ctx context.Context, subj string) (*jetstream.RawStreamMsg, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, subj)
	if !errors.Is(err, jetstream.ErrMsgNotFound) {
		return m, err
	}
	return s.leaderLast(ctx, subj)
}

// leaderLast asks the stream's leader, through the message get API only
// the leader answers, for the last message on subj.
func (s *Store) leaderLast(ctx context.Context, subj string) (*jetstream.RawStreamMsg, error) {
	req, err := json.Marshal(struct {
		LastFor string `json:"last_by_subj"`
	}{subj})
	if err != nil {
		return nil, err
	}
	reply, err := s.js.Conn().RequestWithContext(ctx, streams.MsgGetSubject(Stream), req)
	if err != nil {
		return nil, fmt.Errorf("objectstore: asking %s's leader: %w", Stream, err)
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
		return nil, fmt.Errorf("objectstore: asking %s's leader: %w", Stream, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
		return nil, jetstream.ErrMsgNotFound
	case resp.Error != nil:
		return nil, resp.Error
	case resp.Message == nil:
		return nil, fmt.Errorf("objectstore: %s's leader answered with no message and no error", Stream)
	}
	m := &jetstream.RawStreamMsg{Subject: resp.Message.Subject, Sequence: resp.Message.Seq, Data: resp.Message.Data, Time: resp.Message.Time}
	if len(resp.Message.Header) > 0 {
		if m.Header, err = nats.DecodeHeadersMsg(resp.Message.Header); err != nil {
			return nil, fmt.Errorf("objectstore: the headers of %s in %s: %w", subj, Stream, err)
		}
	}
	return m, nil
}
