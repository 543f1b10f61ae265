package repair

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled JSON Schema, or the reason it did not compile. It is
// immutable and safe for concurrent use.
type Schema struct {
	sch    *jsonschema.Schema
	broken string
}

// Broken returns where and why the schema failed to compile, such as
// `expected one of [...] at /properties/path/type, got string "strng"`,
// or "" if it compiled.
func (s *Schema) Broken() string { return s.broken }

// schemaURL is the name every schema is compiled under. It never shows in
// what this package reports.
const schemaURL = "urn:guardstream:schema"

// noLoader refuses to load anything: a schema is self-contained, and
// compiling one must not read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %q is not loaded; schemas must be self-contained", url)
}

// Compile compiles schema text as a draft 2020-12 JSON Schema (a "$schema"
// naming another draft the validator knows is honoured). Empty text
// compiles to the schema that accepts any JSON. References to anything
// outside the text are refused. Compile never fails: a schema that does not
// compile is returned with Broken set.
func Compile(text string) *Schema {
	if strings.TrimSpace(text) == "" {
		text = "true"
	}
	doc, err := parse(text)
	if err != nil {
		return &Schema{broken: "not valid JSON: " + err.Error()}
	}
	sch, err := compile(doc)
	if err != nil {
		return &Schema{broken: explainCompile(doc, err)}
	}
	return &Schema{sch: sch}
}

func compile(doc any) (sch *jsonschema.Schema, err error) {
	defer func() {
		if v := recover(); v != nil {
			sch, err = nil, fmt.Errorf("the validator failed on it: %v", v)
		}
	}()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// explainCompile turns a compile error into one deterministic line that
// says where compiling failed. The compiler walks maps, so when a schema
// has several faults the one it reports can vary: a fault the metaschema
// finds is taken from the sorted list of all of them, and an unresolvable
// reference is looked for in key order before the compiler's own message is
// used.
func explainCompile(doc any, err error) string {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			if ds := leafDiags(doc, ve); len(ds) > 0 {
				return ds[0].Msg
			}
		}
	}
	if msg := findBadRef(doc); msg != "" {
		return msg
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, schemaURL, "")
	return strings.Join(strings.Fields(msg), " ")
}

// findBadRef walks doc in key order and describes the first $ref or
// $dynamicRef that cannot point inside doc, or returns "". Documents that
// set $id are skipped: their references resolve against other bases.
func findBadRef(doc any) string {
	if hasKey(doc, "$id") {
		return ""
	}
	var msg string
	walkDoc(doc, nil, func(path []string, key string, v any) bool {
		ref, ok := v.(string)
		if !ok || (key != "$ref" && key != "$dynamicRef") {
			return true
		}
		at := pointer(append(path, key))
		switch {
		case !strings.HasPrefix(ref, "#"):
			msg = fmt.Sprintf("at %s: reference %q points outside the schema; schemas must be self-contained", at, ref)
		case ref == "#" || strings.HasPrefix(ref, "#/"):
			if _, ok := resolvePointer(doc, ref[1:]); !ok {
				msg = fmt.Sprintf("at %s: reference %q points at nothing", at, ref)
			}
		default:
			if !hasAnchor(doc, ref[1:]) {
				msg = fmt.Sprintf("at %s: reference %q names no anchor", at, ref)
			}
		}
		return msg == ""
	})
	return msg
}

// walkDoc calls fn for every member of every object in v, depth first in
// key order, until fn returns false. It does not look inside keywords whose
// values are data rather than schemas.
func walkDoc(v any, path []string, fn func(path []string, key string, v any) bool) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if !fn(path, k, v[k]) {
				return false
			}
			switch k {
			case "enum", "const", "default", "examples":
				continue
			}
			if !walkDoc(v[k], append(path, k), fn) {
				return false
			}
		}
	case []any:
		for i, el := range v {
			if !walkDoc(el, append(path, strconv.Itoa(i)), fn) {
				return false
			}
		}
	}
	return true
}

func hasKey(doc any, key string) bool {
	found := false
	walkDoc(doc, nil, func(_ []string, k string, _ any) bool {
		found = k == key
		return !found
	})
	return found
}

func hasAnchor(doc any, name string) bool {
	found := false
	walkDoc(doc, nil, func(_ []string, k string, v any) bool {
		found = (k == "$anchor" || k == "$dynamicAnchor") && v == name
		return !found
	})
	return found
}

// resolvePointer follows the JSON Pointer ptr (already without "#") in doc.
func resolvePointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := doc.(type) {
		case map[string]any:
			el, ok := v[tok]
			if !ok {
				return nil, false
			}
			doc = el
		case []any:
			i, ok := atoi(tok)
			if !ok || i >= len(v) {
				return nil, false
			}
			doc = v[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// validate checks v against s: nil if it fits, else the validator's error.
// A validator that fails (it should not) is reported as a failure at the
// top level rather than a panic.
func (s *Schema) validate(v any) (verr *jsonschema.ValidationError, failed error) {
	defer func() {
		if p := recover(); p != nil {
			verr, failed = nil, fmt.Errorf("the validator failed: %v", p)
		}
	}()
	err := s.sch.Validate(v)
	if err == nil {
		return nil, nil
	}
	if errors.As(err, &verr) {
		return verr, nil
	}
	return nil, fmt.Errorf("the validator failed: %v", err)
}
