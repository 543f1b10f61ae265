package integration

import (
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
)

// TestKillAnywhere kills guard-consumer with SIGKILL again and again while
// it works through a fleet's events, restarting it each time, then compares
// what it published with what a fresh consumer publishes from the same
// events: each run's decisions must be byte-identical and none published
// twice. It exercises the pipeline, the checkpoints and the replay that
// recovers from them.
func TestKillAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts real processes for about half a minute")
	}
	skipUnderRace(t)
	s := newSystem(t, 4)
	fleet := bench.Mix{Tenant: "crash", Runs: 120, Events: 24000, Payload: 200}.Messages()
	for i := 0; i < len(fleet); i += 1000 {
		if _, err := publishChunk(s.js, fleet[i:min(i+1000, len(fleet))], "crash", i); err != nil {
			t.Fatal(err)
		}
	}

	// Kill it at varied moments: during the first batches, during
	// checkpoints (every 100ms), during the long middle.
	for i, after := range []time.Duration{150 * time.Millisecond, 700 * time.Millisecond, 330 * time.Millisecond, 1100 * time.Millisecond, 50 * time.Millisecond} {
		p := s.startProcessWith("-checkpoint-interval", "100ms")
		time.Sleep(after)
		p.kill()
		t.Logf("kill %d after %v: %d decisions so far", i+1, after, len(s.all(streams.ControlStream)))
	}
	last := s.startProcessWith("-checkpoint-interval", "100ms")
	s.settle()
	last.kill()
	crashed := natstest.Control(t, s.js)
	t.Log(natstest.SameDecisions(t, crashed, s.reference()))
}
