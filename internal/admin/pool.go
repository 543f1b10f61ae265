package admin

import (
	"context"
	"errors"
	"sync"
	"time"
)

// The agent API's workers and queues (see pool).
const (
	// agentWorkers serve requests concurrently. A request mostly waits
	// on the server (a direct get, a page of an object), so they are
	// more than the cores.
	agentWorkers = 16
	// tenantInFlight is how many of them one tenant's requests may hold
	// at once: a tenant whose requests are slow, or who sends a flood,
	// leaves the others three quarters of the workers.
	tenantInFlight = agentWorkers / 4
	// tenantQueued is how many of a tenant's requests may wait: enough
	// for a fleet's catch-ups after a reconnect of every agent, and a
	// bound on what a flood costs memory.
	tenantQueued = 256
	// maxQueued bounds the waiting requests of all tenants.
	maxQueued = 4096
	// maxWait is how long a request may wait for a worker before it is
	// answered busy undone: its requester has most likely given up (the
	// Go client's catch-up does after 10s).
	maxWait = 10 * time.Second
	// maxRequestBytes bounds a request's body; both endpoints' requests
	// are a few hundred bytes. With maxQueued it bounds the memory that
	// waiting requests hold to 64 MiB.
	maxRequestBytes = 16 << 10
)

var (
	errTenantBusy = errors.New("too many requests of this tenant are waiting; retry later")
	errBusy       = errors.New("the agent API is busy; retry later")
	errStopped    = errors.New("the agent API is stopping")
)

// job is a request waiting for a worker.
type job struct {
	tenant string
	at     time.Time // when it was queued
	run    func(ctx context.Context, waited time.Duration)
	refuse func(error) // answers it undone
}

// pool serves the agent API's requests concurrently, fairly among
// tenants.
//
// A micro endpoint is one subscription whose handler runs one request at
// a time: served there, one tenant's slow or many requests would hold up
// every tenant's catch-ups and pages. The endpoint's handler therefore
// only queues a request, by tenant, and answers it busy at once when its
// tenant's queue (tenantQueued) or all queues (maxQueued) are full.
// agentWorkers workers take the queued requests round-robin over the
// tenants that have some waiting, one request of each in turn, and skip
// a tenant holding tenantInFlight workers already. A tenant that floods
// the API therefore gets its turn like any other, and has its own
// requests refused (429) or answered late, but cannot take more than a
// quarter of the workers, nor delay another tenant's request by more than
// one turn of the tenants waiting. This bounds a tenant's share rather
// than its rate: a rate limit would refuse a fleet's burst of catch-ups
// after a reconnect, which the queue takes, and a request costs the
// server a direct get, which leaves nothing behind.
type pool struct {
	mu       sync.Mutex
	wake     *sync.Cond
	queues   map[string][]job // tenants with requests waiting
	ring     []string         // the tenants of queues, in turn order
	inFlight map[string]int   // workers held, by tenant
	queued   int
	stopped  bool
	wg       sync.WaitGroup
	ctx      context.Context // cancelled by stop
	cancel   context.CancelFunc
}

func newPool(workers int) *pool {
	p := &pool{queues: map[string][]job{}, inFlight: map[string]int{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wake = sync.NewCond(&p.mu)
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// add queues j, or fails with errTenantBusy, errBusy or errStopped.
func (p *pool) add(j job) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, waiting := p.queues[j.tenant]
	switch {
	case p.stopped:
		return errStopped
	case len(q) >= tenantQueued:
		return errTenantBusy
	case p.queued >= maxQueued:
		return errBusy
	}
	if !waiting {
		p.ring = append(p.ring, j.tenant)
	}
	p.queues[j.tenant] = append(q, j)
	p.queued++
	p.wake.Signal()
	return nil
}

// next takes the next request to serve, waiting for one; false once the
// pool is stopped.
func (p *pool) next() (job, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.stopped {
			return job{}, false
		}
		for i, t := range p.ring {
			if p.inFlight[t] >= tenantInFlight {
				continue
			}
			q := p.queues[t]
			j := q[0]
			p.ring = append(p.ring[:i:i], p.ring[i+1:]...)
			if q = q[1:]; len(q) > 0 {
				p.queues[t] = q
				p.ring = append(p.ring, t) // its next request waits for its next turn
			} else {
				delete(p.queues, t)
			}
			p.queued--
			p.inFlight[t]++
			return j, true
		}
		p.wake.Wait()
	}
}

// done gives back the worker a request of tenant held.
func (p *pool) done(tenant string) {
	p.mu.Lock()
	if p.inFlight[tenant]--; p.inFlight[tenant] == 0 {
		delete(p.inFlight, tenant)
	}
	p.mu.Unlock()
	// A worker may be waiting for this tenant's next request.
	p.wake.Broadcast()
}

func (p *pool) work() {
	defer p.wg.Done()
	for {
		j, ok := p.next()
		if !ok {
			return
		}
		j.run(p.ctx, time.Since(j.at))
		p.done(j.tenant)
	}
}

// stop refuses the waiting requests and waits for the workers to finish
// the requests they serve.
func (p *pool) stop() {
	p.mu.Lock()
	p.stopped = true
	queues := p.queues
	p.queues, p.ring, p.queued = map[string][]job{}, nil, 0
	p.mu.Unlock()
	p.wake.Broadcast()
	p.cancel()
	for _, q := range queues {
		for _, j := range q {
			j.refuse(errStopped)
		}
	}
	p.wg.Wait()
}
