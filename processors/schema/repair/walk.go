package repair

import (
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxApplicable bounds the subschemas looked at for one location. A schema
// whose applicable set is larger is not used for renames there; the bound
// depends on the schema alone, so the outcome does not depend on the order
// maps are walked in.
const maxApplicable = 512

// declared describes what the schema says about the members of an object
// at one location: the property names any applicable subschema declares,
// and the patterns of its patternProperties.
type declared struct {
	props    []string // sorted
	patterns []jsonschema.Regexp
}

// known reports whether key is declared or matches a pattern.
func (d *declared) known(key string) bool {
	if _, ok := slices.BinarySearch(d.props, key); ok {
		return true
	}
	for _, re := range d.patterns {
		if re.MatchString(key) {
			return true
		}
	}
	return false
}

// declaredAt returns what the subschemas that may apply at loc in root
// declare, following references, allOf/anyOf/oneOf, if/then/else and
// dependentSchemas, and stepping through properties, patternProperties,
// additionalProperties, items and prefixItems. It over-approximates: a
// branch that does not match still counts. ok is false when the set is too
// large to look at.
func (s *Schema) declaredAt(root any, loc []string) (d declared, ok bool) {
	set, ok := s.applicableAt(root, loc)
	if !ok {
		return d, false
	}
	seen := map[string]bool{}
	for _, sch := range set {
		for name := range sch.Properties {
			if !seen[name] {
				seen[name] = true
				d.props = append(d.props, name)
			}
		}
		for re := range sch.PatternProperties {
			d.patterns = append(d.patterns, re)
		}
	}
	slices.Sort(d.props)
	return d, true
}

// requiredAt reports whether a subschema that may apply to the object at
// loc in root requires its property name; when there are too many to look
// at, it says yes.
func (s *Schema) requiredAt(root any, loc []string, name string) bool {
	set, ok := s.applicableAt(root, loc)
	return !ok || slices.ContainsFunc(set, func(sch *jsonschema.Schema) bool { return slices.Contains(sch.Required, name) })
}

// applicableAt returns the subschemas that may apply at loc in root (see
// declaredAt); ok is false when there are too many to look at.
func (s *Schema) applicableAt(root any, loc []string) (set []*jsonschema.Schema, ok bool) {
	set, ok = closure([]*jsonschema.Schema{s.sch})
	v := root
	for _, tok := range loc {
		if !ok {
			return nil, false
		}
		var next []*jsonschema.Schema
		switch c := v.(type) {
		case map[string]any:
			next = stepProperty(set, tok)
			v = c[tok]
		case []any:
			i, _ := atoi(tok)
			next = stepItem(set, i)
			if i < len(c) {
				v = c[i]
			}
		default:
			return nil, false
		}
		set, ok = closure(next)
	}
	return set, ok
}

// closure returns the schemas in start and every schema that applies to the
// same value through them.
func closure(start []*jsonschema.Schema) ([]*jsonschema.Schema, bool) {
	seen := map[*jsonschema.Schema]bool{}
	var out []*jsonschema.Schema
	queue := slices.Clone(start)
	for len(queue) > 0 {
		sch := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if sch == nil || seen[sch] {
			continue
		}
		if len(seen) == maxApplicable {
			return nil, false
		}
		seen[sch] = true
		out = append(out, sch)
		queue = append(queue, sch.Ref, sch.RecursiveRef, sch.If, sch.Then, sch.Else)
		if sch.DynamicRef != nil {
			queue = append(queue, sch.DynamicRef.Ref)
		}
		queue = append(queue, sch.AllOf...)
		queue = append(queue, sch.AnyOf...)
		queue = append(queue, sch.OneOf...)
		for _, dep := range sch.DependentSchemas {
			queue = append(queue, dep)
		}
		for _, dep := range sch.Dependencies {
			if dep, ok := dep.(*jsonschema.Schema); ok {
				queue = append(queue, dep)
			}
		}
	}
	return out, true
}

// stepProperty returns the schemas that apply to the member name of an
// object the schemas in set apply to.
func stepProperty(set []*jsonschema.Schema, name string) []*jsonschema.Schema {
	var next []*jsonschema.Schema
	for _, sch := range set {
		matched := false
		if p, ok := sch.Properties[name]; ok {
			next, matched = append(next, p), true
		}
		for re, p := range sch.PatternProperties {
			if re.MatchString(name) {
				next, matched = append(next, p), true
			}
		}
		if !matched {
			if ap, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
				next = append(next, ap)
			}
		}
		next = append(next, sch.UnevaluatedProperties)
	}
	return next
}

// stepItem returns the schemas that apply to item i of an array the schemas
// in set apply to.
func stepItem(set []*jsonschema.Schema, i int) []*jsonschema.Schema {
	var next []*jsonschema.Schema
	for _, sch := range set {
		if i < len(sch.PrefixItems) {
			next = append(next, sch.PrefixItems[i])
		} else {
			next = append(next, sch.Items2020)
		}
		switch items := sch.Items.(type) {
		case *jsonschema.Schema:
			next = append(next, items)
		case []*jsonschema.Schema:
			if i < len(items) {
				next = append(next, items[i])
			} else if ai, ok := sch.AdditionalItems.(*jsonschema.Schema); ok {
				next = append(next, ai)
			}
		}
		next = append(next, sch.UnevaluatedItems, sch.Contains)
	}
	return next
}
