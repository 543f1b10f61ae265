package client

import (
	"context"
	"time"

	"github.com/guardstream/guardstream/event"
)

// mailboxSize bounds the decisions a run holds that nobody has asked for
// yet; beyond it the oldest is dropped.
const mailboxSize = 1024

// mailbox holds decisions by key until someone takes them, so a decision
// that arrives before its waiter is not lost. Keys name what the decision
// answers: the verdict of a call, its output, the settling of its round.
// Its owner's mutex guards it.
type mailbox struct {
	posted  map[string][]event.Decision
	order   []string // keys in the order they were posted, for eviction
	waiting map[string]chan struct{}
}

func verdictKey(call string) string { return "v:" + call }
func outputKey(call string) string  { return "o:" + call }
func settledKey(call string) string { return "s:" + call }

// post files d under key and wakes its waiter.
func (m *mailbox) post(key string, d event.Decision) {
	if m.posted == nil {
		m.posted, m.waiting = map[string][]event.Decision{}, map[string]chan struct{}{}
	}
	if len(m.order) >= mailboxSize {
		old := m.order[0]
		m.order = m.order[1:]
		if q := m.posted[old]; len(q) > 0 {
			m.posted[old] = q[1:]
		}
		if len(m.posted[old]) == 0 {
			delete(m.posted, old)
		}
	}
	m.posted[key] = append(m.posted[key], d)
	m.order = append(m.order, key)
	if ch, ok := m.waiting[key]; ok {
		close(ch)
		delete(m.waiting, key)
	}
}

// take removes and returns the oldest decision under key, if any.
func (m *mailbox) take(key string) (event.Decision, bool) {
	q := m.posted[key]
	if len(q) == 0 {
		return event.Decision{}, false
	}
	if len(q) == 1 {
		delete(m.posted, key)
	} else {
		m.posted[key] = q[1:]
	}
	for i, k := range m.order {
		if k == key {
			m.order = append(m.order[:i], m.order[i+1:]...)
			break
		}
	}
	return q[0], true
}

// drop removes every decision under key.
func (m *mailbox) drop(key string) {
	for {
		if _, ok := m.take(key); !ok {
			return
		}
	}
}

// signal returns a channel closed when something is posted under key.
func (m *mailbox) signal(key string) <-chan struct{} {
	if m.waiting == nil {
		m.posted, m.waiting = map[string][]event.Decision{}, map[string]chan struct{}{}
	}
	ch, ok := m.waiting[key]
	if !ok {
		ch = make(chan struct{})
		m.waiting[key] = ch
	}
	return ch
}

// await takes the next decision under key, waiting until one is posted,
// the run stops (stopped is then true), ctx ends or expired fires.
func (r *Run) await(ctx context.Context, key string, expired <-chan time.Time) (d event.Decision, stopped bool, err error) {
	for {
		r.mu.Lock()
		if d, ok := r.box.take(key); ok {
			r.mu.Unlock()
			return d, false, nil
		}
		if r.stop != nil {
			d := *r.stop
			r.mu.Unlock()
			return d, true, nil
		}
		wake := r.box.signal(key)
		r.mu.Unlock()
		select {
		case <-wake:
		case <-r.done:
		case <-ctx.Done():
			return event.Decision{}, false, ctx.Err()
		case <-expired:
			return event.Decision{}, false, ErrNoVerdict
		}
	}
}
