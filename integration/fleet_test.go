package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// feeder publishes a scripted fleet's events in the background at a
// steady rate, each under a Nats-Msg-Id of its own, and re-publishes what
// the server did not confirm, as an agent must.
type feeder struct {
	done  chan struct{}
	quit  chan struct{}
	once  sync.Once
	sent  atomic.Int64    // events the server confirmed
	acked map[string]bool // their ids; read it once done
}

// feed publishes mix's events over nc at perSecond events a second, until
// they are all published or the test stops it.
func feed(t *testing.T, nc *nats.Conn, mix bench.Mix, perSecond int) *feeder {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	msgs := mix.Messages()
	f := &feeder{done: make(chan struct{}), quit: make(chan struct{}), acked: make(map[string]bool, len(msgs))}
	const chunk = 50
	every := time.Duration(chunk) * time.Second / time.Duration(perSecond)
	go func() {
		defer close(f.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := 0; i < len(msgs); i += chunk {
			select {
			case <-tick.C:
			case <-f.quit:
				return
			}
			ids, err := publishChunk(js, msgs[i:min(i+chunk, len(msgs))], mix.Tenant, i)
			if err != nil {
				t.Errorf("publishing the fleet: %v", err)
				return
			}
			for _, id := range ids {
				f.acked[id] = true
			}
			f.sent.Add(int64(len(ids)))
		}
	}()
	t.Cleanup(func() { f.halt() })
	return f
}

// publishChunk publishes msgs, the first being the fleet's event number
// first, and returns their ids once the server stored them all. What it
// does not confirm is published again, under the same id, for at most
// 30 s in all: a server going away mid-publish.
func publishChunk(js jetstream.JetStream, msgs []bench.Message, prefix string, first int) ([]string, error) {
	ids := make([]string, len(msgs))
	futs := make([]jetstream.PubAckFuture, len(msgs))
	for k, m := range msgs {
		ids[k] = fmt.Sprintf("%s-%d", prefix, first+k)
		futs[k], _ = js.PublishMsgAsync(message(m), jetstream.WithMsgID(ids[k]))
	}
	deadline := time.Now().Add(30 * time.Second)
	for k, fut := range futs {
		if fut != nil {
			select {
			case <-fut.Ok():
				continue
			case <-fut.Err():
			case <-time.After(time.Until(deadline)):
			}
		}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err := js.PublishMsg(ctx, message(msgs[k]), jetstream.WithMsgID(ids[k]))
			cancel()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("event %s: %w", ids[k], err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return ids, nil
}

func message(m bench.Message) *nats.Msg {
	msg := nats.NewMsg(m.Subject)
	msg.Data = m.Data
	return msg
}

// halt stops publishing, and waits until the last events sent are stored.
func (f *feeder) halt() {
	f.once.Do(func() { close(f.quit) })
	<-f.done
}

// wait waits until every event is published.
func (f *feeder) wait(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(limit):
		t.Fatalf("the fleet did not finish publishing within %v (%d sent)", limit, f.sent.Load())
	}
}

// owners surveys the runners sharing the partitions, as `nats micro stats
// guard-runner` does, and returns the partitions each owns, by instance.
func owners(t *testing.T, nc *nats.Conn) map[string][]int {
	t.Helper()
	subj, _ := micro.ControlSubject(micro.StatsVerb, streams.RunnerService, "")
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(subj, inbox, nil); err != nil {
		t.Fatal(err)
	}
	out := map[string][]int{}
	for {
		m, err := sub.NextMsg(300 * time.Millisecond)
		if err != nil {
			return out
		}
		var st micro.Stats
		if err := json.Unmarshal(m.Data, &st); err != nil {
			t.Fatal(err)
		}
		out[st.ID] = []int{}
		for _, e := range st.Endpoints {
			var pins map[string]string
			_ = json.Unmarshal(e.Data, &pins)
			for p := range pins {
				var n int
				fmt.Sscan(p, &n)
				out[st.ID] = append(out[st.ID], n)
			}
		}
		slices.Sort(out[st.ID])
	}
}

// describe renders owners for the log, naming the processes.
func describe(own map[string][]int, names map[string]string) string {
	s := ""
	for _, id := range slices.Sorted(maps.Keys(own)) {
		name := names[id]
		if name == "" {
			name = id
		}
		s += fmt.Sprintf("%s:%v ", name, own[id])
	}
	return s
}
