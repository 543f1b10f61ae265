package antipattern

import "slices"

// Bounds on the state.
const (
	// MaxPending bounds the calls awaiting a result that the state
	// remembers.
	MaxPending = 64
	// MaxCallPaths bounds the paths remembered per pending call.
	MaxCallPaths = 8
	// MaxOperands bounds what a verification is remembered to have run.
	MaxOperands = 4
	// MaxBaselines bounds the failing verifications on reverted work that
	// the state remembers.
	MaxBaselines = 8
	// MaxScratch bounds the files the state remembers the run created.
	MaxScratch = 64
	// MaxEdits bounds the substitutions the state remembers, to tell one
	// that undoes an earlier one.
	MaxEdits = 16
	// MaxQuoted bounds the pieces of text the state remembers the run's
	// edits wrote or replaced, and MaxQuoteLen the bytes of each.
	MaxQuoted   = 16
	MaxQuoteLen = 64
)

// State is the detector's state for one run.
type State struct {
	Started   bool     `msgpack:"start,omitempty"` // the run start was seen
	Workspace string   `msgpack:"ws,omitempty"`
	Declared  int      `msgpack:"decl,omitempty"` // outputs promised at run start
	Missing   []string `msgpack:"miss,omitempty"` // promised outputs not produced yet, normalised, in declared order
	// Shells are the run's declared tools that run shell commands by
	// their declared kind or the shape of their schema.
	Shells []string `msgpack:"sh,omitempty"`
	// Writers are the run's tools declared of kind edit that the
	// vocabulary's write tools do not name (workspace.DeclaredWriters).
	Writers []string `msgpack:"wt,omitempty"`

	Verify Verification `msgpack:"vfy"` // the last verification of the work
	// Reverted is set while the work is put back to a committed state (git
	// stash, git checkout of files) and no change has been made since:
	// verifications then run on the baseline, not on the work.
	Reverted  bool       `msgpack:"rev,omitempty"`
	Baselines []Baseline `msgpack:"base,omitempty"` // failing verifications on reverted work, oldest first
	// Scratch are workspace files the run created itself, oldest first:
	// removing them is cleaning up, not changing the work.
	Scratch []string `msgpack:"scr,omitempty"`
	// Edits are the run's last substitutions (sed -i s/old/new/), oldest
	// first, by which a later one that undoes them is known.
	Edits []EditMark `msgpack:"ed,omitempty"`
	// Quoted are pieces of the string literals the run's edits wrote or
	// replaced, newest last: a failing test that quotes one checks what
	// the run deliberately changed.
	Quoted []string `msgpack:"q,omitempty"`

	Planning int  `msgpack:"plan,omitempty"` // planning steps since the last applied change
	Advised  bool `msgpack:"adv,omitempty"`  // commit_plan was advised for this streak
	// Retests are the failing test runs since the work last changed or a
	// test run passed.
	Retests int `msgpack:"rt,omitempty"`

	Pending []Pending `msgpack:"pend,omitempty"` // calls awaiting results, oldest first
}

// Verification is the outcome of a verifying result.
type Verification struct {
	Seen   bool   `msgpack:"seen,omitempty"`
	Failed bool   `msgpack:"fail,omitempty"`
	Call   string `msgpack:"call,omitempty"`
	Tool   string `msgpack:"tool,omitempty"`
	Exit   int64  `msgpack:"exit,omitempty"`
	Err    bool   `msgpack:"err,omitempty"`
	Seq    int64  `msgpack:"seq,omitempty"` // the result's sequence
	// Sig identifies what ran (the test runner's command), to compare it
	// with baselines; Failures is the number of failed tests it reported,
	// -1 if unknown.
	Sig      uint64 `msgpack:"sig,omitempty"`
	Failures int    `msgpack:"nf,omitempty"`
	// Operands are the files and test names its test runner ran, to
	// recognise a call that reads the failing tests.
	Operands []string `msgpack:"ops,omitempty"`
	// Stale: the work changed after this verification failed in ways
	// that name no files; Changed: the files changed since, less the
	// run's own files it has removed again (cleaning up is no change), at
	// most MaxCallPaths.
	Stale   bool     `msgpack:"stale,omitempty"`
	Changed []string `msgpack:"chd,omitempty"`
	// Quotes: its failure report quotes text the run's edits wrote or
	// replaced (State.Quoted), so the failing test checks what the run
	// changed on purpose. Read: a later call that changes nothing read
	// the failing tests. Together: the run met an expectation its change
	// made obsolete, and judged it.
	Quotes bool `msgpack:"quotes,omitempty"`
	Read   bool `msgpack:"read,omitempty"`
	// Baseline: it ran on reverted work.
	Baseline bool `msgpack:"base,omitempty"`
}

// changed reports whether the work changed after v.
func (v *Verification) changed() bool { return v.Stale || len(v.Changed) > 0 }

// Baseline is a verification that failed while the work was reverted: the
// failures it shows were there before the run's changes.
type Baseline struct {
	Sig      uint64 `msgpack:"s"`
	Failures int    `msgpack:"n"`
}

// Pending is a call awaiting its result.
type Pending struct {
	Call  string   `msgpack:"c"`
	Tool  string   `msgpack:"t,omitempty"`
	Write bool     `msgpack:"w,omitempty"`
	Paths []string `msgpack:"p,omitempty"` // its paths that were missing outputs when it was made
	// What a shell command does, found when it was made: its exit-status
	// kind (exitcode.Kind), how it changes the work, the files it creates,
	// and, should its result verify the work, what it ran.
	Kind     uint8    `msgpack:"k,omitempty"`
	Effect   Effect   `msgpack:"e,omitempty"`
	Written  []string `msgpack:"wr,omitempty"` // workspace files it writes, at most MaxCallPaths ("" last: and more)
	Removed  []string `msgpack:"rm,omitempty"` // workspace files it removes, likewise
	Created  []string `msgpack:"cr,omitempty"` // files among Written it creates`
	Sig      uint64   `msgpack:"sig,omitempty"`
	Operands []string `msgpack:"ops,omitempty"`
	// Marks are its substitutions, to remember when it succeeds; Quoted
	// the pieces of text its edits write or replace, at most MaxCallPaths.
	Marks  []EditMark `msgpack:"mk,omitempty"`
	Quoted []string   `msgpack:"q,omitempty"`
}

// EditMark is a substitution of a run (sed -i [addr]s/old/new/ file), by
// hashes of file, address and text: Fwd of old to new, Inv of new to old.
// A later substitution whose Fwd is an earlier one's Inv undoes it, and
// one that undoes an undo does the change again.
type EditMark struct {
	Fwd  uint64 `msgpack:"f"`
	Inv  uint64 `msgpack:"i"`
	Undo bool   `msgpack:"u,omitempty"`
}

// Effect is how a call changes the work, as a set of bits.
type Effect uint8

// Effects.
const (
	// EffectChange: it changes files of the work that it does not name
	// (git apply, patch, git stash pop).
	EffectChange Effect = 1 << iota
	// EffectRevert: it puts files back to a committed state.
	EffectRevert
	// EffectRestore: it brings reverted work back (git stash pop).
	EffectRestore
)

func (s *State) addPending(p Pending) {
	if len(s.Pending) == MaxPending {
		copy(s.Pending, s.Pending[1:])
		s.Pending = s.Pending[:MaxPending-1]
	}
	s.Pending = append(s.Pending, p)
}

func (s *State) takePending(call string) (Pending, bool) {
	for i, p := range s.Pending {
		if p.Call == call {
			s.Pending = append(s.Pending[:i], s.Pending[i+1:]...)
			return p, true
		}
	}
	return Pending{}, false
}

// addScratch remembers p as created by the run.
func (s *State) addScratch(p string) {
	if slices.Contains(s.Scratch, p) {
		return
	}
	if len(s.Scratch) == MaxScratch {
		copy(s.Scratch, s.Scratch[1:])
		s.Scratch = s.Scratch[:MaxScratch-1]
	}
	s.Scratch = append(s.Scratch, p)
}

// undoes returns the remembered substitution that a substitution with
// forward hash fwd undoes, if any.
func (s *State) undoes(fwd uint64) (EditMark, bool) {
	for _, m := range s.Edits {
		if m.Inv == fwd {
			return m, true
		}
	}
	return EditMark{}, false
}

// addEdit remembers the substitution m, forgetting the one it undoes.
func (s *State) addEdit(m EditMark) {
	s.Edits = slices.DeleteFunc(s.Edits, func(e EditMark) bool { return e.Inv == m.Fwd })
	if len(s.Edits) == MaxEdits {
		copy(s.Edits, s.Edits[1:])
		s.Edits = s.Edits[:MaxEdits-1]
	}
	s.Edits = append(s.Edits, m)
}

// addQuoted remembers a piece of text the run's edits wrote or replaced.
func (s *State) addQuoted(q string) {
	if i := slices.Index(s.Quoted, q); i >= 0 {
		s.Quoted = slices.Delete(s.Quoted, i, i+1)
	}
	if len(s.Quoted) == MaxQuoted {
		copy(s.Quoted, s.Quoted[1:])
		s.Quoted = s.Quoted[:MaxQuoted-1]
	}
	s.Quoted = append(s.Quoted, q)
}

// addBaseline remembers a failing verification on reverted work.
func (s *State) addBaseline(b Baseline) {
	for i := range s.Baselines {
		if s.Baselines[i].Sig == b.Sig {
			s.Baselines[i] = b
			return
		}
	}
	if len(s.Baselines) == MaxBaselines {
		copy(s.Baselines, s.Baselines[1:])
		s.Baselines = s.Baselines[:MaxBaselines-1]
	}
	s.Baselines = append(s.Baselines, b)
}

// preexisting reports whether v's failures were there on the baseline: the
// same command failed on reverted work with at least as many failures (or
// counts that cannot be compared).
func (s *State) preexisting(v *Verification) bool {
	for _, b := range s.Baselines {
		if b.Sig == v.Sig && (b.Failures < 0 || v.Failures < 0 || v.Failures <= b.Failures) {
			return true
		}
	}
	return false
}

// produce marks the outputs p produces, p itself or those it lies under.
func (s *State) produce(p string) {
	if p == "" {
		return
	}
	kept := s.Missing[:0]
	for _, o := range s.Missing {
		if !covers(o, p) {
			kept = append(kept, o)
		}
	}
	clear(s.Missing[len(kept):])
	s.Missing = kept
}

// wanted reports whether p would produce a missing output.
func (s *State) wanted(p string) bool {
	for _, o := range s.Missing {
		if covers(o, p) {
			return true
		}
	}
	return false
}

// covers reports whether producing p produces the output o: p is o or lies
// under it.
func covers(o, p string) bool {
	return p == o || o == "." || len(p) > len(o) && p[len(o)] == '/' && p[:len(o)] == o
}
