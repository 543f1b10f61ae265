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
	Got   []uint64 `msgpack:"got"`            // bit i is set when Calls[i] is settled: its result is in, or it was refused
	In    int      `msgpack:"in,omitempty"`   // calls settled
	// Refused has bit i set when Calls[i] was refused; nil until one is.
	Refused []uint64 `msgpack:"refused,omitempty"`
}

func (r *Round) has(i int) bool { return r.Got[i/64]&(1<<(i%64)) != 0 }

func (r *Round) mark(i int) { r.Got[i/64] |= 1 << (i % 64) }

func (r *Round) refuse(i int) {
	if r.Refused == nil {
		r.Refused = make([]uint64, len(r.Got))
	}
	r.Refused[i/64] |= 1 << (i % 64)
}

// missing returns the calls that are not settled, in natural order.
func (r *Round) missing() []string {
	if r.In == len(r.Calls) {
		return nil
	}
	return r.callsWhere(func(i int) bool { return !r.has(i) })
}

// refused returns the calls that were refused, in natural order.
func (r *Round) refused() []string {
	if r.Refused == nil {
		return nil
	}
	return r.callsWhere(func(i int) bool { return r.Refused[i/64]&(1<<(i%64)) != 0 })
}

func (r *Round) callsWhere(keep func(i int) bool) []string {
	var out []string
	for i, c := range r.Calls {
		if keep(i) {
			out = append(out, c)
		}
	}
	return out
}
