package client

// recentSize is how many message ids a run remembers to drop duplicates.
const recentSize = 256

// recent remembers the last recentSize ids it was given.
type recent struct {
	ids  [recentSize]string
	next int
	set  map[string]struct{}
}

// add records id and reports whether it was already there. The empty id is
// never a duplicate.
func (r *recent) add(id string) bool {
	if id == "" {
		return false
	}
	if _, dup := r.set[id]; dup {
		return true
	}
	if r.set == nil {
		r.set = make(map[string]struct{}, recentSize)
	}
	delete(r.set, r.ids[r.next])
	r.ids[r.next] = id
	r.next = (r.next + 1) % recentSize
	r.set[id] = struct{}{}
	return false
}
