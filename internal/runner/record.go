package runner

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// record is one stored event as the event path sees it: delivered by the
// partition's consumer, or read back from the stream at recovery.
type record struct {
	subject   string      // as stored: agent.<p>.<tenant>.<run>.<kind>
	header    nats.Header // as published: a timer's carries Nats-Scheduler
	data      []byte
	seq       uint64    // stream sequence
	at        time.Time // when it reached the server; timers count from it
	delivered uint64    // how often the consumer delivered it; 0 if read back
	cseq      uint64    // the consumer's sequence of this delivery; 0 if read back

	subj   streams.Stored // the subject parsed, once admission parsed it
	parsed bool
	over   string // the admission limit it was over, if any (overRun, overTenant)
}

// errNotDelivered: a message that did not come from a JetStream consumer.
var errNotDelivered = errors.New("runner: the message carries no JetStream delivery metadata")

// delivered returns the record of a message delivered by a consumer. It
// reads the delivery metadata from the ack subject without allocating,
// which jetstream.Msg.Metadata does not.
func delivered(m jetstream.Msg) (record, error) {
	r := record{subject: m.Subject(), header: m.Headers(), data: m.Data()}
	// $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>, and
	// from server 2.9 on $JS.ACK.<domain>.<account hash>.<stream>...<pending>.<token>
	reply, ok := strings.CutPrefix(m.Reply(), "$JS.ACK.")
	if !ok {
		return r, errNotDelivered
	}
	skip := 2 // stream, consumer
	if n := strings.Count(reply, ".") + 1; n >= 9 {
		skip = 4 // domain, account hash, stream, consumer
	} else if n != 7 {
		return r, errNotDelivered
	}
	var fields [5]uint64 // delivered, stream seq, consumer seq, timestamp, pending
	rest := reply
	for i := 0; i < skip+len(fields); i++ {
		var tok string
		tok, rest, _ = strings.Cut(rest, ".")
		if i < skip {
			continue
		}
		v, err := strconv.ParseUint(tok, 10, 64)
		if err != nil {
			return r, errNotDelivered
		}
		fields[i-skip] = v
	}
	r.delivered, r.seq, r.cseq, r.at = fields[0], fields[1], fields[2], time.Unix(0, int64(fields[3]))
	return r, nil
}
