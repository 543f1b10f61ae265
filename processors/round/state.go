package round

// State is the barrier's state for one run: the open rounds, at most
// Policy.MaxOpen of them.
type State struct {
	Open []Round `msgpack:"open,omitempty"` // oldest first
}

// Round is an open round.
type Round struct {
	Seq   int64    `msgpack:"seq"`            // seq of the round event
	Wait  int64    `msgpack:"wait,omitempty"` // ms to wait; 0: no timer
	Calls []string `msgpack:"calls"`          // the round's calls, in natural order
	Got   []uint64 `msgpack:"got"`            // bit i is set when Calls[i]'s result is in
	In    int      `msgpack:"in,omitempty"`   // results in
}

func (r *Round) has(i int) bool { return r.Got[i/64]&(1<<(i%64)) != 0 }

func (r *Round) mark(i int) { r.Got[i/64] |= 1 << (i % 64) }

// missing returns the calls whose results are not in, in natural order.
func (r *Round) missing() []string {
	if r.In == len(r.Calls) {
		return nil
	}
	m := make([]string, 0, len(r.Calls)-r.In)
	for i, c := range r.Calls {
		if !r.has(i) {
			m = append(m, c)
		}
	}
	return m
}
