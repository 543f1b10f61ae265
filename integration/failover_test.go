package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
)

// TestFailoverAndRebalance runs guard-consumer processes that share the
// partitions while a fleet publishes: two share them; one is killed with
// SIGKILL mid-stream and the other takes all of them over within the pin
// TTL and a few seconds; a third joins and the partitions spread over the
// two live ones. The decisions must equal those of one uninterrupted
// instance over the same events.
func TestFailoverAndRebalance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three guard-consumer processes for about twenty seconds")
	}
	skipUnderRace(t)
	const partitions = 6
	s := newSystem(t, partitions)
	names := map[string]string{}
	a := s.startProcess()
	b := s.startProcess()
	names[a.instance], names[b.instance] = "A", "B"
	// More events than the test needs: the server pins a partition only
	// when it has an event to deliver, so the fleet goes on until the end.
	f := feed(t, s.nc, bench.Mix{Tenant: "failover", Runs: 60, Events: 60000, Payload: 200}, 1000)

	own := s.waitOwners(t, 10*time.Second, "A and B share the partitions", func(own map[string][]int) bool {
		return len(own[a.instance]) > 0 && len(own[b.instance]) > 0 && len(own[a.instance])+len(own[b.instance]) == partitions
	})
	t.Logf("shared: %s", describe(own, names))
	time.Sleep(time.Second)
	a.kill()
	killed := time.Now()
	t.Logf("killed A with SIGKILL after %d events published", f.sent.Load())
	own = s.waitOwners(t, runner.DefaultConfig(partitions).PinnedTTL+5*time.Second, "B owns every partition", func(own map[string][]int) bool {
		return len(own[b.instance]) == partitions
	})
	t.Logf("B took over every partition %v after the kill (pin TTL %v): %s",
		time.Since(killed).Round(10*time.Millisecond), runner.DefaultConfig(partitions).PinnedTTL, describe(own, names))

	c := s.startProcess()
	names[c.instance] = "C"
	joined := time.Now()
	own = s.waitOwners(t, 10*time.Second, "B and C hold three partitions each", func(own map[string][]int) bool {
		return len(own[b.instance]) == partitions/2 && len(own[c.instance]) == partitions/2
	})
	t.Logf("C joined; %v later: %s", time.Since(joined).Round(10*time.Millisecond), describe(own, names))

	f.halt()
	s.settle()
	b.kill()
	c.kill()
	t.Logf("%d events published; B handed over %d partitions, C took %d",
		f.sent.Load(), b.count("handing a partition over"), c.count("partition taken"))
	t.Log(natstest.SameDecisions(t, natstest.Control(t, s.js), s.reference()))
}

// waitOwners polls the runners' ownership until ok holds, or fails the
// test after limit, naming what it waited for.
func (s *system) waitOwners(t *testing.T, limit time.Duration, what string, ok func(map[string][]int) bool) map[string][]int {
	t.Helper()
	var own map[string][]int
	natstest.Eventually(t, limit, func() error {
		if own = owners(t, s.nc); !ok(own) {
			return fmt.Errorf("waiting until %s: %v", what, own)
		}
		return nil
	})
	return own
}
