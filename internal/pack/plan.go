package pack

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// isZeroer is a type whose IsZero method msgpack's omitempty asks.
type isZeroer interface{ IsZero() bool }

// how a plan writes a value.
type how uint8

const (
	byMsgpack  how = iota // msgpack's encoder for the type
	asMap                 // a struct, as a map of its fields
	asArray               // a slice or array, element by element
	viaPointer            // a pointer: nil, or what it points to
)

// plan is how one type is written and when it is empty.
type plan struct {
	how    how
	zeroer bool    // the type has an IsZero method, which decides emptiness
	fields []field // asMap, and any struct for emptiness
	elem   *plan   // asArray and viaPointer
}

// field is a struct field msgpack writes.
type field struct {
	name      string
	index     int
	omitEmpty bool
	plan      *plan
}

var (
	plans    sync.Map // reflect.Type → *plan, or error if it has none
	compiles sync.Mutex

	zeroerType = reflect.TypeFor[isZeroer]()
	// Types msgpack hands to their own methods.
	encoderTypes = []reflect.Type{
		reflect.TypeFor[msgpack.CustomEncoder](),
		reflect.TypeFor[msgpack.Marshaler](),
		reflect.TypeFor[encoding.BinaryMarshaler](),
		reflect.TypeFor[encoding.TextMarshaler](),
	}
)

// planFor returns t's plan, or an error if pack leaves t to msgpack.
func planFor(t reflect.Type) (*plan, error) {
	if p, ok, err := cached(t); ok {
		return p, err
	}
	compiles.Lock()
	defer compiles.Unlock()
	p, err := compile(t, map[reflect.Type]*plan{})
	if err != nil {
		plans.Store(t, err)
		return nil, err
	}
	plans.Store(t, p)
	return p, nil
}

// cached returns what planFor found for t before, if it did.
func cached(t reflect.Type) (*plan, bool, error) {
	v, ok := plans.Load(t)
	if !ok {
		return nil, false, nil
	}
	if p, ok := v.(*plan); ok {
		return p, true, nil
	}
	return nil, true, v.(error)
}

// compile builds t's plan; doing holds the plans being built, so that a
// type that contains itself refers to its own plan.
func compile(t reflect.Type, doing map[reflect.Type]*plan) (*plan, error) {
	if p, ok, err := cached(t); ok {
		return p, err
	}
	if p := doing[t]; p != nil {
		return p, nil
	}
	p := &plan{zeroer: t.Implements(zeroerType)}
	doing[t] = p
	custom := false // an interface (error among them) is refused below
	for _, it := range encoderTypes {
		custom = custom || t.Implements(it) || t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(it)
	}
	var err error
	switch t.Kind() {
	case reflect.Interface:
		return nil, fmt.Errorf("pack: %s is an interface", t)
	case reflect.Struct:
		p.how = asMap
		p.fields, err = fields(t, doing)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 {
			p.how = asArray
			p.elem, err = compile(t.Elem(), doing)
		}
	case reflect.Pointer:
		p.how = viaPointer
		p.elem, err = compile(t.Elem(), doing)
	}
	if err != nil {
		return nil, err
	}
	if custom {
		p.how = byMsgpack
	}
	return p, nil
}

// fields returns the fields msgpack writes of struct type t, in order.
func fields(t reflect.Type, doing map[reflect.Type]*plan) ([]field, error) {
	var fs []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("msgpack")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case name == "-":
			continue
		case f.Name == "_msgpack" || f.Anonymous:
			return nil, fmt.Errorf("pack: %s: field %s is embedded or sets struct options", t, f.Name)
		case !f.IsExported():
			continue
		case opts != "" && opts != "omitempty" || strings.ContainsAny(name, `'"`):
			return nil, fmt.Errorf("pack: %s: field %s has the tag %q", t, f.Name, tag)
		case name == "":
			name = f.Name
		}
		fp, err := compile(f.Type, doing)
		if err != nil {
			return nil, err
		}
		fs = append(fs, field{name: name, index: i, omitEmpty: opts == "omitempty", plan: fp})
	}
	return fs, nil
}
