package integration

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/internal/natstest"
)

// TestCrashLoopTwoInstances kills one of two guard-consumer processes with
// SIGKILL at random moments, six times, restarting it each time, while a
// fleet publishes: the other takes its partitions over, the restarted one
// takes some back. The decisions must equal those of one uninterrupted
// instance over the same events.
func TestCrashLoopTwoInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts guard-consumer processes for about twenty seconds")
	}
	skipUnderRace(t)
	const partitions = 4
	s := newSystem(t, partitions)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	procs := [2]*process{s.startProcessWith("-checkpoint-interval", "200ms"), s.startProcessWith("-checkpoint-interval", "200ms")}
	f := feed(t, s.nc, bench.Mix{Tenant: "loop", Runs: 80, Events: 8000, Payload: 200}, 600)
	for i := range 6 {
		time.Sleep(time.Duration(300+rng.IntN(1700)) * time.Millisecond)
		k := rng.IntN(2)
		procs[k].kill()
		t.Logf("kill %d: instance %d after %d events published; owners now %v", i+1, k, f.sent.Load(), owners(t, s.nc))
		procs[k] = s.startProcessWith("-checkpoint-interval", "200ms")
	}
	f.wait(t, 40*time.Second)
	s.settle()
	for _, p := range procs {
		p.kill()
	}
	t.Log(natstest.SameDecisions(t, natstest.Control(t, s.js), s.reference()))
}
