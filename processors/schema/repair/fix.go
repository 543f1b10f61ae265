package repair

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/jsonlex"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Bounds on the work of one round of repairs, which keep a hostile value
// from making matching keys quadratic. Past them a value is not repaired
// (or not wholly, and then not at all).
const (
	maxCoercions = 1024 // strings converted
	maxObjects   = 64   // objects whose keys are matched
	maxUnknown   = 16   // unknown keys of one object
	maxTargets   = 128  // properties one object lacks
)

// plan is the repairs one round makes, worked out from the validator's
// errors before any is applied.
type plan struct {
	coercions []coercion // values replaced: ParseString, WrapArray, CoerceScalar
	drops     []coercion // properties removed: DropNull
	renames   []rename
	unwrap    *coercion // the whole value replaced by the one under its wrapper key: Unwrap
}

// coercion replaces the value at loc by to, or, in plan.drops, removes it.
type coercion struct {
	loc []string
	to  any
	d   event.Diag
}

type rename struct {
	loc      []string // the object
	from, to string
	missing  bool // to was a missing required property
}

func (p *plan) empty() bool {
	return len(p.coercions) == 0 && len(p.drops) == 0 && len(p.renames) == 0 && p.unwrap == nil
}

// keyFor returns the key that would be renamed to the property at loc.
func (p *plan) keyFor(loc []string) (string, bool) {
	if p == nil || len(loc) == 0 {
		return "", false
	}
	for _, r := range p.renames {
		if r.to == loc[len(loc)-1] && slices.Equal(r.loc, loc[:len(loc)-1]) {
			return r.from, true
		}
	}
	return "", false
}

// propFor returns the property the key at loc would be renamed to, and
// whether that property was missing (so the rename is reported there).
func (p *plan) propFor(loc []string) (prop string, covered, ok bool) {
	if p == nil || len(loc) == 0 {
		return "", false, false
	}
	for _, r := range p.renames {
		if r.from == loc[len(loc)-1] && slices.Equal(r.loc, loc[:len(loc)-1]) {
			return r.to, r.missing, true
		}
	}
	return "", false, false
}

// apply makes the repairs in root, which it changes, and returns the new
// root and a diagnostic for each repair, in path order.
func (p *plan) apply(root any) (any, []event.Diag) {
	var ds []located
	for _, c := range p.coercions {
		root = setAt(root, c.loc, c.to)
		ds = append(ds, located{loc: c.loc, d: c.d})
	}
	for _, c := range p.drops {
		if obj, ok := valueAt(root, c.loc[:len(c.loc)-1]); ok {
			if m, isObj := obj.(map[string]any); isObj {
				delete(m, c.loc[len(c.loc)-1])
			}
		}
		ds = append(ds, located{loc: c.loc, d: c.d})
	}
	// Deepest first, so the location of a rename is not moved by another.
	renames := slices.Clone(p.renames)
	slices.SortStableFunc(renames, func(a, b rename) int { return cmp.Compare(len(b.loc), len(a.loc)) })
	for _, r := range renames {
		obj, ok := valueAt(root, r.loc)
		if m, isObj := obj.(map[string]any); ok && isObj {
			m[r.to] = m[r.from]
			delete(m, r.from)
		}
		at := child(r.loc, r.from)
		ds = append(ds, located{loc: at, d: event.Diag{Path: pointer(at), Want: r.to, Got: r.from, Msg: fmt.Sprintf("renamed %s to %s", r.from, r.to), Repair: RenameKey.String()}})
	}
	if u := p.unwrap; u != nil { // last: the locations above are in the wrapped value
		root = u.to
		ds = append(ds, located{loc: u.loc, d: u.d})
	}
	slices.SortStableFunc(ds, func(a, b located) int { return compareLoc(a.loc, b.loc) })
	out := make([]event.Diag, len(ds))
	for i, l := range ds {
		out[i] = l.d
	}
	return root, out
}

// triggers are the failures a repair might fix, keyed by the pointer of
// their location.
type triggers struct {
	types   map[string]*typeFailure // a value of a type the schema does not want there
	missing map[string]*keyFailures // required properties absent from the object
	extra   map[string]*keyFailures // properties the object must not have
}

type typeFailure struct {
	loc   []string
	got   string // the JSON Schema type of the value, "number" for any number
	wants []string
}

type keyFailures struct {
	loc   []string
	names []string
}

func (t *triggers) collect(root any, e *jsonschema.ValidationError) {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		f := getOr(t.types, loc, func() *typeFailure { return &typeFailure{loc: loc, got: k.Got} })
		f.wants = append(f.wants, k.Want...)
	case *kind.Required:
		t.addKeys(t.missing, loc, k.Missing)
	case *kind.DependentRequired:
		t.addKeys(t.missing, loc, k.Missing)
	case *kind.Dependency:
		t.addKeys(t.missing, loc, k.Missing)
	case *kind.AdditionalProperties:
		t.addKeys(t.extra, loc, k.Properties)
	case *kind.FalseSchema: // unevaluatedProperties: false, or a property schema of false
		if len(loc) > 0 {
			parent := loc[:len(loc)-1]
			if v, _ := valueAt(root, parent); isObject(v) {
				t.addKeys(t.extra, parent, loc[len(loc)-1:])
			}
		}
	}
	for _, c := range e.Causes {
		t.collect(root, c)
	}
}

func (t *triggers) addKeys(m map[string]*keyFailures, loc []string, names []string) {
	f := getOr(m, loc, func() *keyFailures { return &keyFailures{loc: loc} })
	f.names = append(f.names, names...)
}

func getOr[T any](m map[string]*T, loc []string, mk func() *T) *T {
	k := pointer(loc)
	if f, ok := m[k]; ok {
		return f
	}
	f := mk()
	m[k] = f
	return f
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// plan works out the repairs allowed makes for the failures in verr of the
// value root.
func (s *Schema) plan(root any, verr *jsonschema.ValidationError, allowed Set) *plan {
	t := triggers{types: map[string]*typeFailure{}, missing: map[string]*keyFailures{}, extra: map[string]*keyFailures{}}
	t.collect(root, verr)
	p := &plan{}
	types := make([]*typeFailure, 0, len(t.types))
	for _, f := range t.types {
		types = append(types, f)
	}
	slices.SortFunc(types, func(a, b *typeFailure) int { return compareLoc(a.loc, b.loc) })
	for _, f := range types {
		if len(p.coercions)+len(p.drops) == maxCoercions {
			break
		}
		if f.got == "null" {
			if c, ok := s.dropNull(root, f, allowed); ok {
				p.drops = append(p.drops, c)
			}
			continue
		}
		if c, ok := convert(root, f, allowed); ok {
			p.coercions = append(p.coercions, c)
		}
	}
	if allowed.Has(Unwrap) {
		p.unwrap = s.unwrapAt(root)
	}
	if !allowed.Has(RenameKey) {
		return p
	}
	objects := map[string][]string{}
	for k, f := range t.missing {
		objects[k] = f.loc
	}
	for k, f := range t.extra {
		objects[k] = f.loc
	}
	locs := make([][]string, 0, len(objects))
	for _, loc := range objects {
		locs = append(locs, loc)
	}
	slices.SortFunc(locs, compareLoc)
	for _, loc := range locs[:min(len(locs), maxObjects)] {
		if len(loc) == 0 && p.unwrap != nil {
			continue // the keys of the wrapper are not the arguments'
		}
		k := pointer(loc)
		var missing, extra []string
		if f := t.missing[k]; f != nil {
			missing = f.names
		}
		if f := t.extra[k]; f != nil {
			extra = f.names
		}
		p.renames = append(p.renames, s.renamesAt(root, loc, missing, extra)...)
	}
	return p
}

// convert replaces the value at f.loc by one of a type the schema wants
// there, trying in turn: an array or object the string spells as JSON
// (ParseString), the integer, number or boolean it spells (CoerceScalar),
// and an array of the value (WrapArray).
func convert(root any, f *typeFailure, allowed Set) (coercion, bool) {
	v, _ := valueAt(root, f.loc)
	if str, ok := v.(string); ok {
		if c, ok := parseString(str, f, allowed); ok {
			return c, true
		}
		if c, ok := coerce(str, f, allowed); ok {
			return c, true
		}
	}
	if !allowed.Has(WrapArray) || !slices.Contains(f.wants, "array") {
		return coercion{}, false
	}
	switch v.(type) {
	case string, json.Number, bool:
		got := describe(v)
		return coercion{loc: f.loc, to: []any{v}, d: event.Diag{
			Path: pointer(f.loc), Want: "array", Got: got, Repair: WrapArray.String(),
			Msg: fmt.Sprintf("wrapped %s %s in an array", got, where(f.loc)),
		}}, true
	}
	return coercion{}, false
}

// parseString replaces a string that holds the JSON text of an array or an
// object, where the schema wants one, by that array or object.
func parseString(str string, f *typeFailure, allowed Set) (coercion, bool) {
	t := strings.TrimSpace(str)
	if !allowed.Has(ParseString) || t == "" {
		return coercion{}, false
	}
	typ := "array"
	if t[0] == '{' {
		typ = "object"
	}
	if t[0] != '[' && t[0] != '{' || !slices.Contains(f.wants, typ) {
		return coercion{}, false
	}
	if jsonlex.Deeper(t, MaxDepth-len(f.loc)) { // put at f.loc, it would nest too deep
		return coercion{}, false
	}
	v, err := parse(t)
	if err != nil {
		return coercion{}, false
	}
	got := describe(str)
	return coercion{loc: f.loc, to: v, d: event.Diag{
		Path: pointer(f.loc), Want: typ, Got: got, Repair: ParseString.String(),
		Msg: fmt.Sprintf("parsed %s %s as the %s it holds", got, where(f.loc), typ),
	}}, true
}

// dropNull removes a null at f.loc when it is the value of a property that
// no applicable subschema requires (DropNull).
func (s *Schema) dropNull(root any, f *typeFailure, allowed Set) (coercion, bool) {
	if !allowed.Has(DropNull) || len(f.loc) == 0 {
		return coercion{}, false
	}
	parent, name := f.loc[:len(f.loc)-1], f.loc[len(f.loc)-1]
	if v, _ := valueAt(root, parent); !isObject(v) || s.requiredAt(root, parent, name) {
		return coercion{}, false
	}
	wants := slices.Sorted(slices.Values(f.wants))
	return coercion{loc: f.loc, d: event.Diag{
		Path: pointer(f.loc), Want: strings.Join(slices.Compact(wants), " or ") + ", or nothing", Got: "null", Repair: DropNull.String(),
		Msg: fmt.Sprintf("dropped null for the optional property %s%s", name, within(parent)),
	}}, true
}

// wrapperKeys are the keys Unwrap takes arguments out of.
var wrapperKeys = []string{"args", "arguments", "input", "kwargs", "parameters", "params"}

// unwrapAt returns the replacement of a value that is an object with one
// member, named by wrapperKeys and not declared by the schema, whose value
// is an object, or JSON text of one: that object.
func (s *Schema) unwrapAt(root any) *coercion {
	obj, ok := root.(map[string]any)
	if !ok || len(obj) != 1 {
		return nil
	}
	for k, inner := range obj {
		msg := "took the arguments out of the wrapper key " + k
		if text, ok := inner.(string); ok && strings.HasPrefix(strings.TrimSpace(text), "{") {
			inner, _ = parse(strings.TrimSpace(text))
			msg += ", where they were JSON text"
		}
		if !slices.Contains(wrapperKeys, k) || !isObject(inner) {
			return nil
		}
		if d, ok := s.declaredAt(root, nil); !ok || d.known(k) {
			return nil
		}
		return &coercion{loc: nil, to: inner, d: event.Diag{
			Path: "", Want: "the arguments", Got: "the arguments under " + k, Repair: Unwrap.String(), Msg: msg,
		}}
	}
	return nil
}

// coerce converts a string to the integer, number or boolean the schema
// wants there, if it spells one (CoerceScalar).
func coerce(str string, f *typeFailure, allowed Set) (coercion, bool) {
	if !allowed.Has(CoerceScalar) {
		return coercion{}, false
	}
	t := strings.TrimSpace(str)
	var to any
	var typ string
	switch {
	case slices.Contains(f.wants, "integer") && isNumberLiteral(t) && (isIntegerLiteral(t) || integral(t)):
		to, typ = json.Number(t), "integer"
	case slices.Contains(f.wants, "number") && isNumberLiteral(t):
		to, typ = json.Number(t), "number"
	case slices.Contains(f.wants, "boolean") && (t == "true" || t == "false"):
		to, typ = t == "true", "boolean"
	default:
		return coercion{}, false
	}
	got := describe(str)
	return coercion{loc: f.loc, to: to, d: event.Diag{
		Path: pointer(f.loc), Want: typ, Got: got, Repair: CoerceScalar.String(),
		Msg: fmt.Sprintf("converted %s to %s %s", got, typ, t),
	}}, true
}

// integral reports whether the number literal s, within parse's bounds, has
// an integer value, as JSON Schema counts them (1.0 and 1e3 are integers).
func integral(s string) bool {
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt()
}

// renamesAt matches the unknown keys of the object at loc with the
// properties it lacks, and returns the renames that fix a reported failure:
// a missing required property, or a forbidden key.
func (s *Schema) renamesAt(root any, loc []string, missing, extra []string) []rename {
	v, _ := valueAt(root, loc)
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	d, ok := s.declaredAt(root, loc)
	if !ok {
		return nil
	}
	var unknown []string
	for _, k := range sortedKeys(obj) {
		if !d.known(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 || len(unknown) > maxUnknown {
		return nil
	}
	var targets []string
	for _, name := range append(slices.Clone(d.props), missing...) {
		if _, present := obj[name]; !present {
			targets = append(targets, name)
		}
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)
	if len(targets) > maxTargets {
		return nil
	}

	// Each unknown key's best match, if it is the only one of its rank.
	best := make(map[string]string, len(unknown))
	claims := map[string]int{}
	for _, key := range unknown {
		var cands []string
		rank := noMatch
		for _, prop := range targets {
			switch m := matchKey(key, prop); {
			case m > rank:
				rank, cands = m, append(cands[:0], prop)
			case m == rank && m != noMatch:
				cands = append(cands, prop)
			}
		}
		if len(cands) == 1 {
			best[key] = cands[0]
			claims[cands[0]]++
		}
	}
	var out []rename
	for _, key := range unknown {
		prop, ok := best[key]
		if !ok || claims[prop] != 1 {
			continue // no match, or another key claims the property too
		}
		isMissing, isExtra := slices.Contains(missing, prop), slices.Contains(extra, key)
		if !isMissing && !isExtra {
			continue // nothing failed here that the rename would fix
		}
		out = append(out, rename{loc: loc, from: key, to: prop, missing: isMissing})
	}
	return out
}
