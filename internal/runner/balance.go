package runner

import (
	"cmp"
	"context"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/guardstream/guardstream/streams"
)

// balanceEvery is how often an instance counts the instances and gives up
// what it holds beyond its fair share.
const balanceEvery = time.Second

// balance is this instance's share of the partitions: which it owns, and
// its fair share, ceil(partitions / instances). An instance pulls the
// partitions it does not own only while it owns fewer than its fair
// share, so a partition handed over goes to an instance with room.
//
// The instances are counted with NATS service discovery (roster). There
// is no protocol of its own: the server decides who owns a partition (its
// pin), and the instances only ever give theirs up, or unpin a partition
// pinned to an instance that is gone.
type balance struct {
	mu      sync.Mutex
	mine    []string // by partition: the pin it is owned under, "" if not owned
	owned   int
	fair    int
	changed chan struct{} // closed when room may have appeared or gone
	obs     Observer
}

func newBalance(partitions int, obs Observer) *balance {
	return &balance{mine: make([]string, partitions), fair: partitions, changed: make(chan struct{}), obs: obs}
}

// room reports whether this instance may take another partition, and
// returns a channel closed when that may change.
func (b *balance) room() (bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.owned < b.fair, b.changed
}

// take records that this instance owns partition p under pin.
func (b *balance) take(p int, pin string) {
	b.mu.Lock()
	b.mine[p] = cmp.Or(pin, "unpinned")
	b.owned++
	b.signal()
	b.mu.Unlock()
	b.obs.Owned(p, true)
}

// give records that this instance gave partition p up.
func (b *balance) give(p int) {
	b.mu.Lock()
	b.mine[p] = ""
	b.owned--
	b.signal()
	b.mu.Unlock()
	b.obs.Owned(p, false)
}

// owns reports whether this instance owns partition p.
func (b *balance) owns(p int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mine[p] != ""
}

// pins returns the pins of the partitions this instance owns, by
// partition.
func (b *balance) pins() map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	pins := make(map[string]string, b.owned)
	for p, pin := range b.mine {
		if pin != "" {
			pins[strconv.Itoa(p)] = pin
		}
	}
	return pins
}

// setFair sets the fair share for instances instances and returns the
// partitions to give up, the highest first: as many as this instance
// holds beyond it.
func (b *balance) setFair(instances int) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	fair := (len(b.mine) + instances - 1) / max(instances, 1)
	if fair != b.fair {
		b.fair = fair
		b.signal()
	}
	var give []int
	for p := len(b.mine) - 1; p >= 0 && b.owned-len(give) > b.fair; p-- {
		if b.mine[p] != "" {
			give = append(give, p)
		}
	}
	return give
}

// signal wakes those waiting for room. b.mu must be held.
func (b *balance) signal() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// balancer keeps this instance at its fair share, and unpins the
// partitions pinned to instances that are gone.
type balancer struct {
	r        *Runner
	roster   *roster
	parts    []*partition
	started  time.Time      // when this instance started
	alive    int            // instances at the last survey
	suspects map[int]string // partitions pinned to no live instance at the last look, with the pin
}

// run surveys the instances at once, then every balanceEvery, until ctx
// is done. Until the first survey answers, an instance pulls every
// partition: the server pins to it only those no one else holds, so a
// start is not held up by the survey.
func (b *balancer) run(ctx context.Context) {
	tick := time.NewTicker(balanceEvery)
	defer tick.Stop()
	for {
		b.step(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// step surveys the instances, hands over what this instance holds beyond
// its fair share, and looks for partitions pinned to no live instance:
// all of them when it starts (alive is 0) or an instance has gone, else
// those it suspected at the last look.
func (b *balancer) step(ctx context.Context) {
	n, held := b.roster.survey(ctx)
	for _, p := range b.r.bal.setFair(n) {
		select {
		case b.parts[p].release <- struct{}{}:
			b.r.log.Info("handing a partition over for balance", "partition", p, "instances", n)
		default:
		}
	}
	starting := b.alive == 0
	if starting || n < b.alive {
		for p := range b.parts {
			b.suspects[p] = ""
		}
	}
	b.alive = n
	look := maps.Clone(b.suspects)
	clear(b.suspects)
	for p, seen := range look {
		b.sweep(ctx, p, seen, held, starting && n == 1)
	}
}

// sweep looks at partition p's pin. One that no live instance holds,
// seen twice a survey apart, belongs to an instance that is gone: it is
// unpinned, so that an instance waiting takes the partition at once
// rather than after the pin's TTL. An instance that starts alone unpins
// at the first look what was pinned before it started.
func (b *balancer) sweep(ctx context.Context, p int, seen string, held map[string]bool, alone bool) {
	if b.r.bal.owns(p) {
		return
	}
	pin, since, err := b.r.pinOf(ctx, p)
	if err != nil || pin == "" || held[pin] {
		return
	}
	if pin != seen && !(alone && since.Before(b.started)) {
		b.suspects[p] = pin
		return
	}
	if err := b.r.events.UnpinConsumer(ctx, streams.ConsumerName(p), streams.PriorityGroup); err != nil {
		b.r.log.Debug("unpinning", "partition", p, "err", err)
		return
	}
	b.r.log.Info("unpinned a partition from an instance that is gone", "partition", p, "pin", pin)
}
