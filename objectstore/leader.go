package objectstore

import (
	"context"
	"errors"

	"github.com/guardstream/guardstream/streams"
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
	return streams.LeaderGet(ctx, s.js.Conn(), Stream, streams.LeaderRequest{LastFor: subj})
}
