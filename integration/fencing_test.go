package integration

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestFencedAfterStall freezes one of two guard-consumer processes with
// SIGSTOP past the pin TTL while a fleet publishes, so that the server
// pins the frozen one's partitions to the other, then lets it go on with
// SIGCONT. The resumed instance must learn that it lost every partition
// it held (a pull refused for its old pin, or a fenced state write), say
// so once per partition and not retry, and publish nothing more for them
// that the stream does not drop as a copy of a decision already stored:
// every decision seen on the wire under an id has the same bytes, and the
// control stream equals that of one uninterrupted instance.
func TestFencedAfterStall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two guard-consumer processes for about half a minute")
	}
	skipUnderRace(t)
	const partitions = 4
	ttl := runner.DefaultConfig(partitions).PinnedTTL
	s := newSystem(t, partitions)
	wire := watchDecisions(t, s.nc)
	flags := []string{"-checkpoint-interval", "500ms"} // state writes often, so a stale one meets a newer one
	a, b := s.startProcessWith(flags...), s.startProcessWith(flags...)
	names := map[string]string{a.instance: "A", b.instance: "B"}
	f := feed(t, s.nc, bench.Mix{Tenant: "fence", Runs: 40, Events: 60000, Payload: 200}, 800)

	own := s.waitOwners(t, 10*time.Second, "A and B share the partitions", func(own map[string][]int) bool {
		return len(own[a.instance]) > 0 && len(own[b.instance]) > 0 && len(own[a.instance])+len(own[b.instance]) == partitions
	})
	held := own[a.instance]
	t.Logf("shared: %s", describe(own, names))
	time.Sleep(time.Second)

	a.signal(t, syscall.SIGSTOP)
	stopped := time.Now()
	t.Logf("t=0: SIGSTOP to A, which holds %v, after %d events published", held, f.sent.Load())
	own = s.waitOwners(t, ttl+5*time.Second, "B owns every partition", func(own map[string][]int) bool {
		return len(own[b.instance]) == partitions
	})
	t.Logf("t=%v: B owns every partition (pin TTL %v): %s", since(stopped), ttl, describe(own, names))
	time.Sleep(time.Until(stopped.Add(ttl + 2*time.Second))) // past the TTL whatever unpinned it

	mark, published := a.mark(), wire.count()
	a.signal(t, syscall.SIGCONT)
	resumed := time.Now()
	t.Logf("t=%v: SIGCONT to A, after %d events published and %d decisions seen", since(stopped), f.sent.Load(), published)
	if stale := owners(t, s.nc)[a.instance]; len(stale) > 0 {
		t.Logf("just after SIGCONT A still claims %v", stale)
	}

	// A learns that it lost each partition it held, once.
	lost := map[int][]string{}
	natstest.Eventually(t, 15*time.Second, func() error {
		clear(lost)
		for _, l := range a.since(mark, "partition lost to another instance") {
			p, _ := strconv.Atoi(field(l, "partition"))
			lost[p] = append(lost[p], l)
		}
		for _, p := range held {
			if len(lost[p]) == 0 {
				return fmt.Errorf("A has not said it lost partition %d; since SIGCONT it said:\n%s",
					p, strings.Join(a.since(mark, "partition"), "\n"))
			}
		}
		return nil
	})
	for _, p := range held {
		l := lost[p][0]
		at, _ := time.Parse(time.RFC3339Nano, field(l, "time"))
		t.Logf("A lost partition %d %v after SIGCONT: %s", p, at.Sub(resumed).Round(time.Millisecond), errOf(l))
	}

	own = s.waitOwners(t, 15*time.Second, "A and B share the partitions again", func(own map[string][]int) bool {
		return len(own[a.instance]) > 0 && len(own[b.instance]) > 0 && len(own[a.instance])+len(own[b.instance]) == partitions
	})
	t.Logf("t=%v: shared again: %s", since(stopped), describe(own, names))
	f.halt()
	s.settle()

	// It does not retry: what it logged about losing or failing stops.
	quiet := func() (int, int) {
		return len(a.since(mark, "partition lost")), len(a.since(mark, "partition failed"))
	}
	lostN, failedN := quiet()
	time.Sleep(3 * time.Second)
	if l, fl := quiet(); l != lostN || fl != failedN {
		t.Errorf("A goes on losing or failing partitions after the fleet stopped: %d then %d lost, %d then %d failed", lostN, l, failedN, fl)
	}
	for p, ls := range lost {
		if !slices.Contains(held, p) {
			t.Errorf("A says it lost partition %d, which it did not hold when frozen: %q", p, ls)
		}
		if len(ls) > 1 {
			t.Errorf("A says %d times that it lost partition %d: %q", len(ls), p, ls)
		}
	}
	t.Logf("after SIGCONT A logged %d losses and %d failures; B logged %d losses; %d events published",
		lostN, failedN, len(b.since(0, "partition lost")), f.sent.Load())

	a.kill()
	b.kill()
	copies, differ := wire.after(published)
	t.Logf("after SIGCONT %d decisions were published under an id already seen; %d of them with other bytes", copies, len(differ))
	for _, id := range differ {
		t.Errorf("decision %s was published twice with different bytes", id)
	}
	t.Log(natstest.SameDecisions(t, natstest.Control(t, s.js), s.reference()))
}

// since is how long ago t0 was, for the log.
func since(t0 time.Time) time.Duration { return time.Since(t0).Round(10 * time.Millisecond) }

// errOf returns the err field of a log line, quotes and all.
func errOf(line string) string {
	if _, e, ok := strings.Cut(line, " err="); ok {
		return e
	}
	return line
}

// decisionWire records every decision published on the control subjects,
// as a core subscriber sees them: copies the stream drops as duplicates
// included.
type decisionWire struct {
	mu   sync.Mutex
	seen map[string][]byte // first bytes published under each Nats-Msg-Id
	log  []wireCopy        // every publish, in arrival order
}

type wireCopy struct {
	id     string
	differ bool // other bytes than the first publish under id
	again  bool // id was seen before
}

func watchDecisions(t *testing.T, nc *nats.Conn) *decisionWire {
	t.Helper()
	w := &decisionWire{seen: map[string][]byte{}}
	sub, err := nc.Subscribe("guard.ctl.>", func(m *nats.Msg) {
		id := m.Header.Get(jetstream.MsgIDHeader)
		w.mu.Lock()
		defer w.mu.Unlock()
		first, again := w.seen[id]
		if !again {
			w.seen[id] = bytes.Clone(m.Data)
		}
		w.log = append(w.log, wireCopy{id: id, again: again, differ: again && !bytes.Equal(first, m.Data)})
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = sub.SetPendingLimits(-1, -1)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return w
}

// count returns how many publishes were seen so far.
func (w *decisionWire) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.log)
}

// after returns, of the publishes seen from the n-th on, how many reused
// an id seen before, and the ids published with other bytes.
func (w *decisionWire) after(n int) (int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	copies, differ := 0, []string{}
	for _, c := range w.log[n:] {
		if c.again {
			copies++
		}
		if c.differ {
			differ = append(differ, c.id)
		}
	}
	return copies, differ
}
