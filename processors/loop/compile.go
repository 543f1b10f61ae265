package loop

import (
	"maps"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/canon"
)

// rule is a Rule compiled for evaluation: defaults filled in, classes
// expanded, the policy's action resolved.
type rule struct {
	name     string
	count    Counted
	only     Outcome
	fields   fieldSet
	window   WindowKind
	size     int
	minCycle int
	maxCycle int
	unit     Unit
	varied   bool
	minTools int
	match    map[string]bool // nil: every tool
	resetOn  triggerSet
	rearmOn  triggerSet
	argSet   int // which list of ignored argument keys its identity leaves out
	base     variant
	tools    map[string]*variant // by tool name; nil for most rules
}

// variant is what a rule does for one tool.
type variant struct {
	off    bool
	ladder []Step
	eq     Equality
	masks  maskSet
}

type fieldSet uint8

const (
	fTool fieldSet = 1 << iota
	fArgs
	fPath
	fAll = fTool | fArgs | fPath
)

type triggerSet uint8

func (t triggerSet) has(tr Trigger) bool { return t&bitOf(tr) != 0 }

// bitOf returns the bit of one trigger.
func bitOf(tr Trigger) triggerSet { return triggerSet(bitsOf([]Trigger{tr}, allTriggers)) }

var (
	allTriggers = []Trigger{OnTurn, OnResume, OnCompaction, OnCall, OnResult, OnStep, OnProgress}
	allFields   = []Field{FieldTool, FieldArgs, FieldPath} // in the order of fTool, fArgs, fPath
	allMasks    = []Mask{MaskDigits, MaskHex, MaskUUID}    // in the order of mDigits, mHex, mUUID
)

// bitsOf sets, for each of vals, the bit of its position in all.
func bitsOf[T comparable](vals, all []T) uint8 {
	var s uint8
	for _, v := range vals {
		if i := slices.Index(all, v); i >= 0 {
			s |= 1 << i
		}
	}
	return s
}

type maskSet uint8

const (
	mDigits maskSet = 1 << iota
	mHex
	mUUID
)

// compile turns a valid policy into rules, and returns the distinct
// lists of ignored argument keys they refer to.
func compile(p Policy) ([]rule, [][]uint64) {
	classes := p.Classes
	expand := func(names []string) []string {
		var out []string
		for _, n := range names {
			if members, ok := classes[n]; ok {
				out = append(out, members...)
			} else {
				out = append(out, n)
			}
		}
		return out
	}
	var rules []rule
	setOf, sets := argSets(p)
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Disabled {
			continue
		}
		c := rule{
			name: r.Name, count: r.counted(), only: r.Only, window: r.window(), size: r.Size,
			minCycle: max(r.MinCycle, 1), maxCycle: r.cycle(), unit: r.Unit, varied: r.Varied, minTools: r.MinTools,
			resetOn: triggerSet(bitsOf(r.ResetOn, allTriggers)), rearmOn: triggerSet(bitsOf(r.RearmOn, allTriggers)),
			argSet: setOf[i],
		}
		c.fields = fields(r.Identity, c.count)
		c.base = variant{ladder: resolve(r.Ladder, p.Action), eq: equality(r.Result), masks: maskSet(bitsOf(r.Normalize, allMasks))}
		if len(r.Match) > 0 {
			c.match = map[string]bool{}
			for _, t := range expand(r.Match) {
				c.match[t] = true
			}
		}
		// A tool's own entry first, then classes in name order: a tool
		// keeps the first setting it gets.
		keys := slices.Sorted(maps.Keys(r.Tools))
		slices.SortStableFunc(keys, func(a, b string) int {
			_, ca := classes[a]
			_, cb := classes[b]
			switch {
			case ca == cb:
				return 0
			case cb:
				return -1
			}
			return 1
		})
		for _, key := range keys {
			o := r.Tools[key]
			v := c.base
			v.off = o.Disabled
			if o.Ladder != nil {
				v.ladder = resolve(o.Ladder, p.Action)
			}
			if o.Result != "" {
				v.eq = equality(o.Result)
			}
			if o.Normalize != nil {
				v.masks = maskSet(bitsOf(o.Normalize, allMasks))
			}
			for _, tool := range expand([]string{key}) {
				if c.tools == nil {
					c.tools = map[string]*variant{}
				}
				if _, set := c.tools[tool]; !set {
					v := v
					c.tools[tool] = &v
				}
			}
		}
		rules = append(rules, c)
	}
	return rules, sets
}

// argSets returns, for each rule of p, the position of the list of
// argument keys its identity leaves out among the distinct lists, and the
// lists, as sorted key hashes: the loop's ignore_args first, then the
// rules' own. A disabled rule refers to the loop's.
func argSets(p Policy) (setOf []int, sets [][]uint64) {
	hashes := func(keys []string) []uint64 {
		hs := make([]uint64, 0, len(keys))
		for _, k := range keys {
			hs = append(hs, canon.KeyHash(k))
		}
		slices.Sort(hs)
		return slices.Compact(hs)
	}
	sets = [][]uint64{hashes(p.IgnoreArgs)}
	setOf = make([]int, len(p.Rules))
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.IgnoreArgs == nil || r.Disabled {
			continue
		}
		h := hashes(r.IgnoreArgs)
		k := slices.IndexFunc(sets, func(s []uint64) bool { return slices.Equal(s, h) })
		if k < 0 {
			k, sets = len(sets), append(sets, h)
		}
		setOf[i] = k
	}
	return setOf, sets
}

// variantFor returns what r does for tool.
func (r *rule) variantFor(tool string) *variant {
	if v, ok := r.tools[tool]; ok {
		return v
	}
	return &r.base
}

// sees reports whether r watches calls of tool.
func (r *rule) sees(tool string) bool {
	return (r.match == nil || r.match[tool]) && !r.variantFor(tool).off
}

// targets reports whether a call with the path hash path has an identity
// under r: a rule that tells calls apart by path and not by arguments
// ignores calls that name no path.
func (r *rule) targets(path uint64) bool {
	return r.fields&fPath == 0 || r.fields&fArgs != 0 || path != emptyPath
}

// emptyPath is the hash of the path of a call that names none.
var emptyPath = xxhash.Sum64String("")

// onCalls reports whether r's items come from calls (calls or results).
func (r *rule) onCalls() bool { return r.count == CountCalls || r.count == CountResults }

// resolve replaces do: action by what the policy's action does.
func resolve(ladder []Step, a Action) []Step {
	out := slices.Clone(ladder)
	for i := range out {
		if out[i].Do != DoAction {
			continue
		}
		switch a {
		case ActionCompleteWithWarning:
			out[i].Do = DoCompleteWithWarning
		case ActionInjectSteer:
			out[i].Do = DoInjectSteer
		default:
			out[i].Do = DoStop
		}
	}
	return out
}

func fields(fs []Field, c Counted) fieldSet {
	if len(fs) == 0 && (c == CountCalls || c == CountResults) {
		return fAll
	}
	return fieldSet(bitsOf(fs, allFields))
}

func equality(e Equality) Equality {
	if e == "" {
		return ResultOutput
	}
	return e
}

// steerFor returns the constraint a step of r advises when it names none.
func (r *rule) steerFor(s *Step) event.SteerKind {
	switch {
	case s.Steer != "":
		return s.Steer
	case r.count == CountMessages:
		return event.SteerRepeatMessage
	case r.count == CountCompactions:
		return event.SteerCompactionLoop
	case r.only == OnlyFailed:
		return event.SteerReadErrors
	case r.maxCycle > 1:
		return event.SteerBreakCycle
	case r.fields != 0 && r.fields&(fArgs|fPath) == 0:
		return event.SteerVaryApproach
	}
	return event.SteerAvoidRepeat
}

// reasonFor returns the reason of a step of r that names none.
func (r *rule) reasonFor(s *Step) event.Reason {
	switch {
	case s.Reason != "":
		return s.Reason
	case r.only == OnlyFailed:
		return event.ReasonTooManyMistakes
	}
	return event.ReasonLoopDetected
}

// parts are the hashes a call's identity is made of.
type parts struct {
	tool, args, path uint64
}

// keys caches, for one call, the hashes of its arguments under each list
// of ignored keys, and its identities under each set of fields and list,
// so rules that share them hash the call once.
type keys struct {
	args       string     // the arguments as sent, unless argsOf holds every list's hash
	ignore     [][]uint64 // the lists of ignored keys
	tool, path uint64
	argsOf     [MaxArgSets]uint64
	hashed     uint8                        // bit k: argsOf[k] is set
	key        [MaxArgSets][fAll + 1]uint64 // 0: not computed yet
}

// callKeys returns the keys of a call, whose arguments are hashed under
// the lists in ignore when a rule needs them.
func callKeys(tool, args, path string, ignore [][]uint64) keys {
	return keys{args: args, ignore: ignore, tool: xxhash.Sum64String(tool), path: xxhash.Sum64String(path)}
}

// pendingKeys returns the keys of a call awaiting its result.
func pendingKeys(pc *Pending, sets int) keys {
	k := keys{tool: xxhash.Sum64String(pc.Tool), path: pc.Path, hashed: 1<<sets - 1}
	k.argsOf[0] = pc.Args
	copy(k.argsOf[1:], pc.More[:])
	return k
}

// argsUnder returns the hash of the arguments without the keys of the
// set-th list.
func (k *keys) argsUnder(set int) uint64 {
	if k.hashed&(1<<set) == 0 {
		k.argsOf[set], _ = canon.HashIgnoring(k.args, k.ignore[set])
		k.hashed |= 1 << set
	}
	return k.argsOf[set]
}

// of returns the call's identity under r.
func (k *keys) of(r *rule) uint64 { return k.under(r.fields, r.argSet) }

// full returns the call's full signature, tool, arguments and path, with
// the argument keys r ignores left out.
func (k *keys) full(r *rule) uint64 { return k.under(fAll, r.argSet) }

// under returns the call's identity made of the fields in f, the keys of
// the set-th list left out of its arguments.
func (k *keys) under(f fieldSet, set int) uint64 {
	if k.key[set][f] == 0 {
		p := parts{tool: k.tool, path: k.path}
		if f&fArgs != 0 {
			p.args = k.argsUnder(set)
		}
		k.key[set][f] = f.key(p)
	}
	return k.key[set][f]
}

// key returns the identity of a call made of the fields in f.
func (f fieldSet) key(p parts) uint64 {
	var hs [3]uint64
	n := 0
	for _, part := range [...]struct {
		bit fieldSet
		h   uint64
	}{{fTool, p.tool}, {fArgs, p.args}, {fPath, p.path}} {
		if f&part.bit != 0 {
			hs[n] = part.h
			n++
		}
	}
	return nonZero(canon.Combine(hs[:n]...))
}

// Signature returns the identity of a call: an xxhash over the tool name,
// the canonical arguments and the target path, each hashed apart. It is
// the sig that steer constraints carry (docs/wire.md, "Call identity").
func Signature(tool, args, path string) uint64 {
	k := callKeys(tool, args, path, ignoreNone)
	return k.under(fAll, 0)
}

// ignoreNone is one list of ignored argument keys, empty.
var ignoreNone = [][]uint64{nil}

// nonZero keeps 0 free to mark windows' gaps.
func nonZero(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

// toolKey is the key a refusal of a whole tool is kept under.
func toolKey(tool uint64) uint64 { return nonZero(canon.Combine(tagTool, tool)) }

const (
	tagTool   = 't'
	tagResult = 'r'
	tagRound  = 'o'
)
