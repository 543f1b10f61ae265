package event

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// AppendEvent appends the msgpack encoding of ev to dst and returns the
// extended slice. Fields are written in a fixed order with zero-valued
// optional fields left out, so equal events encode to equal bytes.
func AppendEvent(dst []byte, ev *Event) []byte { return appendValue(dst, ev) }

// AppendDecision appends the msgpack encoding of d to dst, with the same
// guarantees as AppendEvent.
func AppendDecision(dst []byte, d *Decision) []byte { return appendDecision(dst, d) }

// DecodeEvent decodes b into ev, replacing its contents. It checks the
// encoding and the version, not the contents: call Event.Validate for that.
// Errors wrap ErrUndecodable, ErrWrongType or ErrVersion, or ErrLimit for a
// payload nested deeper than MaxNesting.
func DecodeEvent(b []byte, ev *Event) error {
	*ev = Event{}
	if len(b) == 0 || !isMap(b[0]) {
		return ErrUndecodable
	}
	if !readEvent(b, ev) {
		*ev = Event{}
		if err := decode(b, ev); err != nil {
			return err
		}
	}
	return checkVersion(ev.V)
}

// DecodeDecision decodes b into d, replacing its contents, with the same
// errors as DecodeEvent.
func DecodeDecision(b []byte, d *Decision) error {
	*d = Decision{}
	if err := decode(b, d); err != nil {
		return err
	}
	return checkVersion(d.V)
}

func checkVersion(v int) error {
	if v != Version {
		return &FieldError{Field: "v", Msg: fmt.Sprintf("got %d, this consumer speaks %d", v, Version), Err: ErrVersion}
	}
	return nil
}

// sliceWriter is an io.Writer that appends to a byte slice.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

func (w *sliceWriter) WriteByte(c byte) error { w.b = append(w.b, c); return nil }

func (w *sliceWriter) WriteString(s string) (int, error) { w.b = append(w.b, s...); return len(s), nil }

type encoder struct {
	w   sliceWriter
	enc *msgpack.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = msgpack.NewEncoder(&e.w)
	e.enc.UseCompactInts(true)
	return e
}}

func appendValue(dst []byte, v any) []byte {
	e := encoders.Get().(*encoder)
	e.w.b = dst
	if err := e.enc.Encode(v); err != nil {
		// Every wire type is made of strings, integers, booleans and
		// slices of them, which always encode.
		panic(fmt.Sprintf("event: encoding %T: %v", v, err))
	}
	out := e.w.b
	e.w.b = nil
	encoders.Put(e)
	return out
}

type decoder struct {
	r   bytes.Reader
	dec *msgpack.Decoder
}

var decoders = sync.Pool{New: func() any {
	d := &decoder{}
	d.dec = msgpack.NewDecoder(&d.r)
	return d
}}

func decode(b []byte, v any) error {
	if len(b) == 0 || !isMap(b[0]) {
		return ErrUndecodable
	}
	if err := checkShape(b); err != nil {
		return err
	}
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	d.r.Reset(b)
	d.dec.ResetReader(&d.r)
	if err := d.dec.Decode(v); err != nil {
		return diagnose(b, v, err)
	}
	if d.r.Len() != 0 {
		return fmt.Errorf("%w: %d trailing bytes after the map", ErrUndecodable, d.r.Len())
	}
	return nil
}

// isMap reports whether c starts a msgpack map (fixmap, map16 or map32).
func isMap(c byte) bool { return c&0xf0 == 0x80 || c == 0xde || c == 0xdf }

// diagnose turns a failed struct decode into an error that names the field.
// It decodes b generically and checks each known key against the type of
// the struct field it fills, descending into nested maps and arrays.
func diagnose(b []byte, v any, cause error) error {
	var m map[string]any
	if err := msgpack.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%w: %v", ErrUndecodable, err)
	}
	var fe *FieldError
	if errors.As(cause, &fe) {
		return fe
	}
	if field, want, got, ok := mismatch(reflect.TypeOf(v).Elem(), m, ""); ok {
		return &FieldError{Field: field, Msg: fmt.Sprintf("want %s, got %s", want, got), Err: ErrWrongType}
	}
	return fmt.Errorf("%w: %v", ErrWrongType, cause)
}

// mismatch finds the first key of m whose value cannot fill its field of
// struct type t, and names the field with its path from the top.
func mismatch(t reflect.Type, m map[string]any, prefix string) (field, want, got string, found bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("msgpack"), ",")
		val, ok := m[key]
		if !ok || val == nil {
			continue
		}
		path := prefix + key
		if want, got, bad := typeMismatch(f.Type, val); bad {
			return path, want, got, true
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			if field, want, got, found := mismatch(ft, val.(map[string]any), path+"."); found {
				return field, want, got, true
			}
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Struct:
			for j, el := range val.([]any) {
				if want, got, bad := typeMismatch(ft.Elem(), el); bad && el != nil {
					return fmt.Sprintf("%s[%d]", path, j), want, got, true
				}
			}
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			for j, el := range val.([]any) {
				elPath := fmt.Sprintf("%s[%d]", path, j)
				em, isMap := el.(map[string]any)
				if !isMap {
					return elPath, "map", wireType(el), true
				}
				if field, want, got, found := mismatch(ft.Elem(), em, elPath+"."); found {
					return field, want, got, true
				}
			}
		}
	}
	return "", "", "", false
}

// typeMismatch reports whether the generically decoded val cannot fill a
// field of type t, and if so names both.
func typeMismatch(t reflect.Type, val any) (want, got string, bad bool) {
	got = wireType(val)
	switch t.Kind() {
	case reflect.String:
		want = "string"
	case reflect.Bool:
		want = "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		want = "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "unsigned integer"
		if got == "integer" {
			if n, _ := val.(int64); n >= 0 {
				got = want
			} else {
				got = "negative integer"
			}
		}
	case reflect.Slice:
		want = "array"
	case reflect.Pointer, reflect.Struct:
		want = "map"
	default:
		return "", "", false
	}
	if want == "integer" && got == "unsigned integer" {
		got = want
	}
	return want, got, want != got
}

func wireType(v any) string {
	switch v.(type) {
	case string, []byte: // bin is accepted as text: see docs/wire.md
		return "string"
	case bool:
		return "boolean"
	case int8, int16, int32, int64:
		return "integer"
	case uint8, uint16, uint32, uint64:
		return "unsigned integer"
	case float32, float64:
		return "float"
	case []any:
		return "array"
	case map[string]any:
		return "map"
	}
	return fmt.Sprintf("%T", v)
}

// DecodeMsgpack decodes a kind code, refusing values that do not fit.
func (k *Kind) DecodeMsgpack(d *msgpack.Decoder) error {
	n, err := decodeCode(d, "k")
	*k = Kind(n)
	return err
}

// DecodeMsgpack decodes a decision kind code, refusing values that do not fit.
func (k *DecisionKind) DecodeMsgpack(d *msgpack.Decoder) error {
	n, err := decodeCode(d, "k")
	*k = DecisionKind(n)
	return err
}

func decodeCode(d *msgpack.Decoder, field string) (uint8, error) {
	n, err := d.DecodeInt64()
	if err != nil {
		return 0, err
	}
	if n < 1 || n > 255 {
		return 0, &FieldError{Field: field, Msg: fmt.Sprintf("code %d out of range", n), Err: ErrInvalid}
	}
	return uint8(n), nil
}
