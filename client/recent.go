package client

// recentSize is how many message ids a run remembers to drop duplicates.
const recentSize = 256

// recent remembers the last recentSize ids it was given.
type recent struct {
	ids  [recentSize]string
	next int
	set  map[string]struct{}
}

// has reports whether id is among the ids remembered. The empty id never
// is.
func (r *recent) has(id string) bool {
	_, ok := r.set[id]
	return ok && id != ""
}

// add remembers id, forgetting the oldest beyond recentSize. The empty id
// is not remembered.
func (r *recent) add(id string) {
	if id == "" || r.has(id) {
		return
	}
	if r.set == nil {
		r.set = make(map[string]struct{}, recentSize)
	}
	delete(r.set, r.ids[r.next])
	r.ids[r.next] = id
	r.next = (r.next + 1) % recentSize
	r.set[id] = struct{}{}
}
