package pack

import (
	"reflect"

	"github.com/vmihailenco/msgpack/v5"
)

// Encode writes v to enc as enc.Encode(v) would.
func Encode(enc *msgpack.Encoder, v any) error {
	if v == nil {
		return enc.EncodeNil()
	}
	rv := reflect.ValueOf(v)
	p, err := planFor(rv.Type())
	if err != nil {
		return enc.Encode(v)
	}
	return p.encode(enc, rv)
}

func (p *plan) encode(enc *msgpack.Encoder, v reflect.Value) error {
	switch p.how {
	case asMap:
		// Which fields are written, tested once: bit i for field i, and
		// fields past the 64th tested again as they are written.
		var written uint64
		n := 0
		for i := range p.fields {
			if !p.fields[i].omitted(v) {
				n++
				written |= 1 << min(i, 63)
			}
		}
		if err := enc.EncodeMapLen(n); err != nil {
			return err
		}
		for i := range p.fields {
			f := &p.fields[i]
			if written&(1<<min(i, 63)) == 0 || i >= 63 && f.omitted(v) {
				continue
			}
			if err := enc.EncodeString(f.name); err != nil {
				return err
			}
			if err := f.plan.encode(enc, v.Field(f.index)); err != nil {
				return err
			}
		}
		return nil
	case asArray:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return enc.EncodeNil()
		}
		n := v.Len()
		if err := enc.EncodeArrayLen(n); err != nil {
			return err
		}
		for i := range n {
			if err := p.elem.encode(enc, v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	case viaPointer:
		if v.IsNil() {
			return enc.EncodeNil()
		}
		return p.elem.encode(enc, v.Elem())
	}
	return enc.EncodeValue(v)
}

// omitted reports whether msgpack leaves f of struct value v out.
func (f *field) omitted(v reflect.Value) bool {
	return f.omitEmpty && f.plan.empty(v.Field(f.index))
}

// empty reports whether msgpack's omitempty finds v empty: by its IsZero
// method if its type has one, else by its kind.
func (p *plan) empty(v reflect.Value) bool {
	k := v.Kind()
	nilable := k == reflect.Pointer || k == reflect.Map || k == reflect.Slice || k == reflect.Chan || k == reflect.Func || k == reflect.UnsafePointer
	if p.zeroer {
		if nilable && v.IsNil() {
			return true
		}
		return zeroer(v).IsZero()
	}
	switch k {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Struct:
		for i := range p.fields {
			if !p.fields[i].omitted(v) {
				return false
			}
		}
		return true
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// zeroer returns v's IsZero method's receiver without copying v where it
// can: through its address.
func zeroer(v reflect.Value) isZeroer {
	if v.CanAddr() && v.Kind() != reflect.Pointer {
		return v.Addr().Interface().(isZeroer)
	}
	return v.Interface().(isZeroer)
}
