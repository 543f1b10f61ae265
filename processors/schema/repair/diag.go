package repair

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// diagnoser turns the validator's error tree into diagnostics.
type diagnoser struct {
	s     *Schema // the schema, for the properties it declares; nil for a schema's own faults
	root  any     // the value that failed
	hints *plan   // renames that would fix missing or unknown properties; may be nil
	// all is set for a schema's own faults: it follows the first
	// alternative of anyOf and oneOf instead of reporting the alternatives
	// as one failure.
	all bool
	out []located
}

// located is a diagnostic with the location it sorts by.
type located struct {
	loc []string
	d   event.Diag
}

// diagnose returns every failure in verr, sorted and without duplicates.
func (s *Schema) diagnose(root any, verr *jsonschema.ValidationError, hints *plan) []event.Diag {
	dg := diagnoser{s: s, root: root, hints: hints}
	dg.walk(verr)
	return dg.sorted()
}

// leafDiags lists the faults the metaschema found in a schema document.
func leafDiags(doc any, verr *jsonschema.ValidationError) []event.Diag {
	dg := diagnoser{root: doc, all: true}
	dg.walk(verr)
	return dg.sorted()
}

func (dg *diagnoser) sorted() []event.Diag {
	slices.SortFunc(dg.out, func(a, b located) int {
		return cmp.Or(compareLoc(a.loc, b.loc), cmp.Compare(a.d.Want, b.d.Want), cmp.Compare(a.d.Got, b.d.Got), cmp.Compare(a.d.Msg, b.d.Msg))
	})
	ds := make([]event.Diag, 0, len(dg.out))
	for i, l := range dg.out {
		if i > 0 && l.d == dg.out[i-1].d {
			continue
		}
		ds = append(ds, l.d)
	}
	return ds
}

// compareLoc orders locations token by token, array indices numerically,
// a location before the ones below it.
func compareLoc(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		ai, aok := atoi(a[i])
		bi, bok := atoi(b[i])
		if aok && bok {
			return cmp.Compare(ai, bi)
		}
		return cmp.Compare(a[i], b[i])
	}
	return cmp.Compare(len(a), len(b))
}

func (dg *diagnoser) add(loc []string, want, got, msg string) {
	dg.out = append(dg.out, located{loc: loc, d: event.Diag{Path: pointer(loc), Want: want, Got: got, Msg: msg}})
}

// where says where loc is, for a message.
func where(loc []string) string {
	if len(loc) == 0 {
		return "at the top level"
	}
	return "at " + pointer(loc)
}

// within says which object loc is, for a message about one of its members.
func within(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return " in " + pointer(loc)
}

func (dg *diagnoser) value(loc []string) any {
	v, _ := valueAt(dg.root, loc)
	return v
}

func (dg *diagnoser) walk(e *jsonschema.ValidationError) {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, c := range e.Causes {
			dg.walk(c)
		}
	case *kind.AnyOf:
		dg.alternatives(e, "anyOf")
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			dg.alternatives(e, "oneOf")
			return
		}
		dg.add(loc, "exactly one alternative (oneOf)", fmt.Sprintf("matches alternatives %d and %d", k.Subschemas[0], k.Subschemas[1]),
			fmt.Sprintf("the value %s matches more than one alternative of oneOf", where(loc)))
	case *kind.Type:
		want := strings.Join(k.Want, " or ")
		got := describe(dg.value(loc))
		dg.add(loc, want, got, fmt.Sprintf("expected %s %s, got %s", want, where(loc), got))
	case *kind.Required:
		dg.missing(loc, k.Missing, "")
	case *kind.DependentRequired:
		dg.missing(loc, k.Missing, k.Prop)
	case *kind.Dependency:
		dg.missing(loc, k.Missing, k.Prop)
	case *kind.AdditionalProperties:
		dg.unknown(loc, k.Properties)
	case *kind.Enum:
		want := "one of " + list(k.Want)
		got := describe(dg.value(loc))
		dg.add(loc, want, got, fmt.Sprintf("expected %s %s, got %s", want, where(loc), got))
	case *kind.Const:
		want := describeJSON(k.Want)
		got := describe(dg.value(loc))
		dg.add(loc, want, got, fmt.Sprintf("expected %s %s, got %s", want, where(loc), got))
	case *kind.Minimum:
		dg.bound(loc, ">= "+rat(k.Want))
	case *kind.Maximum:
		dg.bound(loc, "<= "+rat(k.Want))
	case *kind.ExclusiveMinimum:
		dg.bound(loc, "> "+rat(k.Want))
	case *kind.ExclusiveMaximum:
		dg.bound(loc, "< "+rat(k.Want))
	case *kind.MultipleOf:
		dg.bound(loc, "a multiple of "+rat(k.Want))
	case *kind.MinLength:
		dg.count(loc, "at least", k.Want, k.Got, "characters")
	case *kind.MaxLength:
		dg.count(loc, "at most", k.Want, k.Got, "characters")
	case *kind.MinItems:
		dg.count(loc, "at least", k.Want, k.Got, "items")
	case *kind.MaxItems:
		dg.count(loc, "at most", k.Want, k.Got, "items")
	case *kind.MinProperties:
		dg.count(loc, "at least", k.Want, k.Got, "properties")
	case *kind.MaxProperties:
		dg.count(loc, "at most", k.Want, k.Got, "properties")
	case *kind.Pattern:
		dg.bound(loc, "a string matching "+quote(k.Want))
	case *kind.Format:
		dg.bound(loc, "format "+k.Want)
	case *kind.UniqueItems:
		got := fmt.Sprintf("items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
		dg.add(loc, "unique items", got, fmt.Sprintf("expected unique items %s, but %s", where(loc), got))
	case *kind.Contains:
		dg.add(loc, "an item matching contains", describe(dg.value(loc)), fmt.Sprintf("no item %s matches contains", where(loc)))
	case *kind.MinContains:
		dg.count(loc, "at least", k.Want, len(k.Got), "items matching contains")
	case *kind.MaxContains:
		dg.count(loc, "at most", k.Want, len(k.Got), "items matching contains")
	case *kind.AdditionalItems:
		dg.add(loc, "no additional items", fmt.Sprintf("%d additional items", k.Count), fmt.Sprintf("the array %s has %d items more than allowed", where(loc), k.Count))
	case *kind.PropertyNames:
		dg.add(child(loc, k.Property), "property name matching propertyNames", quote(k.Property),
			fmt.Sprintf("property name %s%s is not allowed", quote(k.Property), within(loc)))
	case *kind.FalseSchema:
		if len(loc) > 0 && isObject(dg.value(loc[:len(loc)-1])) {
			name := loc[len(loc)-1]
			dg.add(loc, "no property "+name, describe(dg.value(loc)), fmt.Sprintf("property %s%s is not allowed", name, within(loc[:len(loc)-1])))
			return
		}
		dg.add(loc, "nothing (not allowed)", describe(dg.value(loc)), fmt.Sprintf("no value is allowed %s", where(loc)))
	case *kind.Not:
		got := describe(dg.value(loc))
		dg.add(loc, "a value not matching the not schema", got, fmt.Sprintf("the value %s matches the schema it must not match", where(loc)))
	default:
		keyword := strings.Join(e.ErrorKind.KeywordPath(), "/")
		if keyword == "" {
			keyword = fmt.Sprintf("%T", e.ErrorKind)
			keyword = keyword[strings.LastIndexByte(keyword, '.')+1:]
		}
		got := describe(dg.value(loc))
		dg.add(loc, "a value satisfying "+keyword, got, fmt.Sprintf("the value %s fails %s", where(loc), keyword))
	}
}

// alternatives reports an anyOf or oneOf none of whose alternatives
// matched. When every alternative failed only on the type of the value
// itself, it is one type failure ("integer or null"); otherwise one failure
// that counts the alternatives.
func (dg *diagnoser) alternatives(e *jsonschema.ValidationError, keyword string) {
	if dg.all {
		// A schema's fault: the first alternative is the metaschema's
		// main reading (for "type", the list of type names).
		if len(e.Causes) > 0 {
			dg.walk(e.Causes[0])
		}
		return
	}
	loc := e.InstanceLocation
	var wants []string
	typesOnly := true
	var leaves []*jsonschema.ValidationError
	for _, c := range e.Causes {
		leaves = appendLeaves(leaves, c)
	}
	for _, l := range leaves {
		t, ok := l.ErrorKind.(*kind.Type)
		if !ok || !slices.Equal(l.InstanceLocation, loc) {
			typesOnly = false
			break
		}
		wants = append(wants, t.Want...)
	}
	got := describe(dg.value(loc))
	if typesOnly && len(wants) > 0 {
		slices.Sort(wants)
		want := strings.Join(slices.Compact(wants), " or ")
		dg.add(loc, want, got, fmt.Sprintf("expected %s %s, got %s", want, where(loc), got))
		return
	}
	n := len(e.Causes)
	dg.add(loc, fmt.Sprintf("a match for one of %d alternatives (%s)", n, keyword), got,
		fmt.Sprintf("the value %s matches none of the %d alternatives of %s", where(loc), n, keyword))
}

// appendLeaves appends the failures below e, looking through groups,
// references and alternatives.
func appendLeaves(dst []*jsonschema.ValidationError, e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference, *kind.AnyOf:
		for _, c := range e.Causes {
			dst = appendLeaves(dst, c)
		}
		return dst
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			for _, c := range e.Causes {
				dst = appendLeaves(dst, c)
			}
			return dst
		}
	}
	return append(dst, e)
}

// missing reports required properties that are absent, naming the key that
// was probably meant when a rename was found for it.
func (dg *diagnoser) missing(loc []string, names []string, because string) {
	for _, name := range names {
		at := child(loc, name)
		msg := "missing required property " + name + within(loc)
		if because != "" {
			msg = fmt.Sprintf("missing property %s%s, required when %s is present", name, within(loc), because)
		}
		if key, ok := dg.hints.keyFor(at); ok {
			msg = fmt.Sprintf("expected %s, got %s", name, key)
		}
		dg.add(at, "required property", "missing", msg)
	}
}

// unknown reports properties that additionalProperties forbids, naming the
// property probably meant when a rename was found for one.
func (dg *diagnoser) unknown(loc []string, names []string) {
	names = slices.Sorted(slices.Values(names))
	var declaredList string
	if dg.s != nil {
		if d, ok := dg.s.declaredAt(dg.root, loc); ok && len(d.props) > 0 {
			declaredList = "; declared: " + strings.Join(limit(d.props, 8), ", ")
		}
	}
	for _, name := range names {
		at := child(loc, name)
		msg := "unknown property " + name + within(loc) + declaredList
		if prop, covered, ok := dg.hints.propFor(at); ok {
			if covered {
				continue // reported as the missing property it stands for
			}
			msg = fmt.Sprintf("expected %s, got %s", prop, name)
		}
		dg.add(at, "declared property", "unknown property", msg)
	}
}

func (dg *diagnoser) bound(loc []string, want string) {
	got := describe(dg.value(loc))
	dg.add(loc, want, got, fmt.Sprintf("expected %s %s, got %s", want, where(loc), got))
}

func (dg *diagnoser) count(loc []string, rel string, want, got int, unit string) {
	w := rel + " " + units(want, unit)
	g := units(got, unit)
	dg.add(loc, w, g, fmt.Sprintf("expected %s %s, got %s", w, where(loc), g))
}

// units renders a count, "1 item" or "2 items"; unit is the plural.
func units(n int, unit string) string {
	if n == 1 {
		first, rest, _ := strings.Cut(unit, " ")
		unit = strings.TrimSuffix(first, "s")
		if first == "properties" {
			unit = "property"
		}
		if rest != "" {
			unit += " " + rest
		}
	}
	return fmt.Sprintf("%d %s", n, unit)
}

// list renders schema values as `["a" "b"]`, at most 8 of them.
func list(vs []any) string {
	parts := make([]string, 0, min(len(vs), 9))
	for i, v := range vs {
		if i == 8 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, describeJSON(v))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// limit returns at most n names, with "…" for the rest.
func limit(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(slices.Clip(names[:n]), "…")
}

// rat renders a schema bound: an integer as is, a fraction in decimal.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	s := strings.TrimRight(r.FloatString(9), "0")
	return strings.TrimSuffix(s, ".")
}
