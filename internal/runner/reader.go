package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// maxMultiLast is how many subjects one request for their last messages
// may name: the server answers at most 1024 messages to one.
const maxMultiLast = 1024

// Headers of the direct get API's end-of-batch status, which nats.go does
// not name.
const (
	headerNumPending = "Nats-Num-Pending"
	headerUpTo       = "Nats-UpTo-Sequence"
)

// errReadStatus: the server refused a read with a status.
var errReadStatus = errors.New("runner: reading the stream failed")

// errReaderBehind: answers to a read were dropped because its queue was
// full, so the batch read may have a hole.
var errReaderBehind = errors.New("runner: the reader's queue overflowed; answers were dropped")

// reader reads a stream's messages back in batches through its direct get
// API, which any current replica answers with no consumer to create: the
// events of a partition at recovery, and the run snapshots of a batch's
// new runs in one request (Config.AllowDirect on both streams). A replica
// may be a little behind its leader; callers that must not read stale
// data check what it answered against what the leader says (leaderNext,
// or a sequence known to be stored). A reader makes one request at a time:
// each partition has its own.
//
// Answers queue on a channel sized for two answers of the most messages
// the reader asks for: the current one and the late one of a request that
// timed out. nats.go's SubscribeSync would queue up to 65,536, a half-MB
// array of pointers per reader that every garbage collection scans
// whole, on a machine whose cores the server shares. A read that still
// finds answers dropped fails (errReaderBehind) rather than return a
// batch with a hole.
type reader struct {
	nc      *nats.Conn
	stream  string
	inbox   string // this reader's replies are inbox.<request>
	sub     *nats.Subscription
	answers chan *nats.Msg
	dropped int    // answers dropped when the last read began
	n       uint64 // the last request's number
	timeout time.Duration
}

// newReader returns a reader of stream whose requests are answered with
// at most most messages each.
func newReader(nc *nats.Conn, stream string, most int, timeout time.Duration) (*reader, error) {
	inbox := nc.NewRespInbox()
	answers := make(chan *nats.Msg, 2*(most+1)) // and the end of each batch
	sub, err := nc.ChanSubscribe(inbox+".*", answers)
	if err != nil {
		return nil, fmt.Errorf("runner: reading %s: %w", stream, err)
	}
	return &reader{nc: nc, stream: stream, inbox: inbox, sub: sub, answers: answers, timeout: timeout}, nil
}

func (rd *reader) close() { _ = rd.sub.Unsubscribe() }

// getRequest is the direct get API's request (JSApiMsgGetRequest).
type getRequest struct {
	Seq       uint64   `json:"seq,omitempty"`
	Batch     int      `json:"batch,omitempty"`
	MaxBytes  int      `json:"max_bytes,omitempty"`
	MultiLast []string `json:"multi_last,omitempty"`

	keep string // the subject prefix of the messages the answer keeps
}

// end is what the server says after the last message of a batch.
type end struct {
	pending uint64 // messages matching the request after the last sent
	upTo    uint64 // for a multi_last request: the last sequence it looked at
	last    uint64 // the last sequence sent, kept or not
}

// scan reads the stream's next batch messages from sequence seq on,
// appending those whose subject begins with prefix to out, and returns the
// last sequence it read (seq-1 if none) and how many messages come after
// it. It asks for every subject: a batch for a wildcard subject costs the
// server a walk over every subject the wildcard matches, to count what is
// pending, which at a million runs took a second a batch.
func (rd *reader) scan(ctx context.Context, seq uint64, prefix string, batch int, out []record) ([]record, uint64, uint64, error) {
	out, e, err := rd.get(ctx, getRequest{Seq: seq, Batch: batch, MaxBytes: 8 << 20, keep: prefix}, out)
	return out, max(e.last, seq-1), e.pending, err
}

// lastOf reads the last message of each of subjects (at most
// maxMultiLast), leaving out those that have none, and returns the last
// stream sequence the replica that answered had.
func (rd *reader) lastOf(ctx context.Context, subjects []string, out []record) ([]record, uint64, error) {
	out, e, err := rd.get(ctx, getRequest{MultiLast: subjects, Batch: len(subjects)}, out)
	return out, e.upTo, err
}

// get sends req and reads the answer up to the end of the batch.
func (rd *reader) get(ctx context.Context, req getRequest, out []record) ([]record, end, error) {
	var e end
	body, err := json.Marshal(req)
	if err != nil {
		return out, e, err
	}
	if rd.dropped, err = rd.sub.Dropped(); err != nil {
		return out, e, err
	}
	rd.n++
	reply := rd.inbox + "." + strconv.FormatUint(rd.n, 10)
	ctx, cancel := context.WithTimeout(ctx, rd.timeout)
	defer cancel()
	if err := rd.nc.PublishRequest(streams.DirectGetSubject(rd.stream), reply, body); err != nil {
		return out, e, err
	}
	for {
		var m *nats.Msg
		select {
		case m = <-rd.answers:
		case <-ctx.Done():
			return out, e, fmt.Errorf("runner: reading %s: %w", rd.stream, rd.whole(ctx.Err()))
		}
		if m.Subject != reply {
			continue // the late answer of a request that timed out
		}
		if status := m.Header.Get("Status"); status != "" {
			switch status {
			case "204": // end of batch
				e.pending, _ = strconv.ParseUint(m.Header.Get(headerNumPending), 10, 64)
				e.upTo, _ = strconv.ParseUint(m.Header.Get(headerUpTo), 10, 64)
				return out, e, rd.whole(nil)
			case "404": // nothing matches
				return out, e, rd.whole(nil)
			case "503":
				return out, e, fmt.Errorf("%w: %s: no replica answers direct gets: %w", errReadStatus, rd.stream, nats.ErrNoResponders)
			}
			return out, e, fmt.Errorf("%w: %s: %s %s", errReadStatus, rd.stream, status, m.Header.Get("Description"))
		}
		r, err := fromDirect(m)
		if err != nil {
			return out, e, err
		}
		if e.last = r.seq; strings.HasPrefix(r.subject, req.keep) {
			out = append(out, r)
		}
	}
}

// whole returns err, or errReaderBehind if answers were dropped since the
// read began.
func (rd *reader) whole(err error) error {
	if n, derr := rd.sub.Dropped(); derr == nil && n > rd.dropped {
		return fmt.Errorf("%w: %s: %d answers", errReaderBehind, rd.stream, n-rd.dropped)
	}
	return err
}

// fromDirect returns the record of a message a direct get answered.
func fromDirect(m *nats.Msg) (record, error) {
	h := m.Header
	seq, err := strconv.ParseUint(h.Get(jetstream.SequenceHeader), 10, 64)
	if err != nil {
		return record{}, fmt.Errorf("%w: a direct get answer without its sequence", errReadStatus)
	}
	at, err := time.Parse(time.RFC3339Nano, h.Get(jetstream.TimeStampHeaer))
	if err != nil {
		return record{}, fmt.Errorf("%w: a direct get answer without its time: %w", errReadStatus, err)
	}
	return record{subject: h.Get(jetstream.SubjectHeader), header: h, data: m.Data, seq: seq, at: at}, nil
}

// leaderGet asks the stream's leader for the message at stream sequence
// seq, or, with filter set, the first matching filter at or after seq, and
// returns its sequence and subject; 0 if there is none.
func (rd *reader) leaderGet(ctx context.Context, seq uint64, filter string) (uint64, string, error) {
	m, err := rd.leader(ctx, streams.LeaderRequest{Seq: seq, NextFor: filter})
	if m == nil || err != nil {
		return 0, "", err
	}
	return m.seq, m.subject, nil
}

// leaderLast asks the stream's leader for the last message on subject, nil
// if there is none.
func (rd *reader) leaderLast(ctx context.Context, subject string) (*record, error) {
	return rd.leader(ctx, streams.LeaderRequest{LastFor: subject})
}

// leader asks the stream's leader for the message req names, nil if there
// is none.
func (rd *reader) leader(ctx context.Context, req streams.LeaderRequest) (*record, error) {
	ctx, cancel := context.WithTimeout(ctx, rd.timeout)
	defer cancel()
	m, err := streams.LeaderGet(ctx, rd.nc, rd.stream, req)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("runner: %w", err)
	}
	return &record{subject: m.Subject, header: m.Header, seq: m.Sequence, data: m.Data, at: m.Time}, nil
}
