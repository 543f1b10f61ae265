package runner_test

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/runnertest"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
)

// limits records the in-flight limits a runner reports.
type limits struct {
	runner.NopObserver
	mu  sync.Mutex
	got []int
}

func (l *limits) Inflight(_, limit int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, limit)
}

func (l *limits) seen() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

// TestSlowStorageShrinksInflight: while the server's publish
// acknowledgements come later than an eighth of PublishTimeout, a
// partition halves the events it keeps in flight, not below a sixteenth of
// MaxInflight, and fails nothing; once they come quickly again the limit
// grows back to MaxInflight, and every event is acked.
func TestSlowStorageShrinksInflight(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	sc := streams.DefaultConfig()
	sc.Partitions, sc.Memory = 1, true
	natstest.Provision(t, js, &sc)
	px := newProxy(t, s.Addr().String())
	nc, err := nats.Connect(px.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cfg := runner.DefaultConfig(1)
	cfg.AckWait = 3 * time.Second
	cfg.PublishTimeout = time.Second // an eighth: 125 ms
	logs := &runnertest.Buffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the runner's log:\n%s", logs)
		}
	})
	var obs limits
	stop := runnertest.Start(t, nc, guard.Chain(guard.DefaultPolicy()), cfg, runner.WithObserver(&obs))
	defer stop()

	// send publishes calls calls and their results of each of runs new
	// runs, interleaved, interval apart.
	batch := 0
	send := func(runs, calls int, interval time.Duration) {
		t.Helper()
		batch++
		evs := make([][]event.Event, runs)
		for i := range evs {
			h := processortest.NewHistory("acme", fmt.Sprintf("b%d-r%d", batch, i))
			for k := range calls {
				h.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, k)).Result(false, "x")
			}
			evs[i] = h.Events()
		}
		for k := range 2 * calls {
			for i := range runs {
				publish(t, js, evs[i][k])
				time.Sleep(interval)
			}
		}
	}

	// Storage answers 200 ms late, for about 2 s: over fifteen budgets.
	px.setDelay(200 * time.Millisecond)
	send(4, 100, 2*time.Millisecond)
	natstest.Settle(t, js, 1, 10*time.Second)
	slow := obs.seen()
	t.Logf("limits while storage was slow: %v", slow)
	if len(slow) == 0 || slow[0] != cfg.MaxInflight {
		t.Fatalf("limits %v: want the tenure to report %d first", slow, cfg.MaxInflight)
	}
	if least := slices.Min(slow); least > cfg.MaxInflight/4 || least < cfg.MaxInflight/16 {
		t.Errorf("least limit %d while storage was slow: want at most %d and at least %d", least, cfg.MaxInflight/4, cfg.MaxInflight/16)
	}

	// Storage answers quickly again: batches stored within a quarter of
	// the budget grow the limit by their events, so about a thousand
	// events bring it back. Under a loaded machine some are stored later
	// and add nothing, so events keep coming, 400 at a time, until it is
	// back or 8,000 have come.
	px.setDelay(0)
	time.Sleep(300 * time.Millisecond) // what the proxy holds drains
	var fast []int
	for range 20 {
		send(4, 50, 0)
		natstest.Settle(t, js, 1, 10*time.Second)
		if fast = obs.seen()[len(slow):]; len(fast) > 0 && fast[len(fast)-1] == cfg.MaxInflight {
			break
		}
	}
	t.Logf("after storage was fast again: %d changes of the limit, the last to %v", len(fast), fast[max(len(fast)-1, 0):])
	if len(fast) == 0 || fast[len(fast)-1] != cfg.MaxInflight {
		t.Errorf("limit not back to %d after 8,000 events with storage fast again: changes %v", cfg.MaxInflight, fast)
	}
	if strings.Contains(logs.String(), "partition failed") {
		t.Error("a partition failed while storage was slow")
	}
}
