package pack

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

type named string

type inner struct {
	A int    `msgpack:"a,omitempty"`
	B string `msgpack:"b"`
}

type allOmitted struct {
	A int    `msgpack:"a,omitempty"`
	S []bool `msgpack:"s,omitempty"`
}

// zeroable is an array that msgpack would never find empty by its kind.
type zeroable [3]uint64

func (z zeroable) IsZero() bool { return z == zeroable{} }

// custom writes itself, through a pointer receiver.
type custom struct{ N int }

func (c *custom) EncodeMsgpack(enc *msgpack.Encoder) error { return enc.EncodeInt(int64(c.N) * 2) }

// kinds has a field of every kind a plan handles, most of them optional.
type kinds struct {
	B        bool             `msgpack:"b,omitempty"`
	I        int              `msgpack:"i,omitempty"`
	I8       int8             `msgpack:"i8,omitempty"`
	I16      int16            `msgpack:"i16"`
	I32      int32            `msgpack:"i32,omitempty"`
	I64      int64            `msgpack:"i64,omitempty"`
	U        uint             `msgpack:"u,omitempty"`
	U8       uint8            `msgpack:"u8,omitempty"`
	U16      uint16           `msgpack:"u16,omitempty"`
	U32      uint32           `msgpack:"u32"`
	U64      uint64           `msgpack:"u64,omitempty"`
	F32      float32          `msgpack:"f32,omitempty"`
	F64      float64          `msgpack:"f64,omitempty"`
	S        string           `msgpack:"s,omitempty"`
	Named    named            `msgpack:"n,omitempty"`
	Bytes    []byte           `msgpack:"by,omitempty"`
	ByteArr  [4]byte          `msgpack:"ba,omitempty"`
	Arr      [2]int           `msgpack:"arr,omitempty"`
	Zero     zeroable         `msgpack:"z,omitempty"`
	Strings  []string         `msgpack:"ss,omitempty"`
	Nameds   []named          `msgpack:"ns"`
	Ints     []int64          `msgpack:"is,omitempty"`
	Inner    inner            `msgpack:"in,omitempty"`
	Omitted  allOmitted       `msgpack:"om,omitempty"`
	Inners   []inner          `msgpack:"ins,omitempty"`
	InnerArr [2]inner         `msgpack:"ina"`
	Ptr      *inner           `msgpack:"p,omitempty"`
	PtrInt   *int             `msgpack:"pi"`
	Map      map[string]int   `msgpack:"m,omitempty"`
	MapIn    map[string]inner `msgpack:"mi,omitempty"`
	Nested   [][]inner        `msgpack:"nest,omitempty"`
	Custom   custom           `msgpack:"c,omitempty"`
	Customs  []custom         `msgpack:"cs"`
	Untagged int
	Skipped  int `msgpack:"-"`
}

// withHidden has a field msgpack does not see.
type withHidden struct {
	A      int `msgpack:"a,omitempty"`
	hidden int
}

// recursive contains itself.
type recursive struct {
	N    int          `msgpack:"n,omitempty"`
	Next *recursive   `msgpack:"next,omitempty"`
	Kids []recursive  `msgpack:"kids,omitempty"`
	At   time.Time    `msgpack:"at,omitempty"`
	AtP  *time.Time   `msgpack:"atp,omitempty"`
	Tree []*recursive `msgpack:"tree"`
}

// leftToMsgpack has what a plan does not cover.
type leftToMsgpack struct {
	inner
	Any any `msgpack:"any,omitempty"`
}

func msgpackBytes(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("msgpack: %v", err)
	}
	return buf.Bytes()
}

func packBytes(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := Encode(enc, v); err != nil {
		t.Fatalf("pack: %v", err)
	}
	return buf.Bytes()
}

func same(t *testing.T, v any) {
	t.Helper()
	if want, got := msgpackBytes(t, v), packBytes(t, v); !bytes.Equal(want, got) {
		t.Fatalf("%#v\nmsgpack: %x\npack:    %x", v, want, got)
	}
}

// sparse zeroes about half of v's settable parts, so that omitempty is
// tested both ways at every depth.
func sparse(v reflect.Value, r *rand.Rand) {
	if v.CanSet() && r.Intn(2) == 0 {
		v.SetZero()
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				sparse(v.Field(i), r)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			sparse(v.Index(i), r)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			sparse(v.Elem(), r)
		}
	}
}

func TestRandomValuesEncodeAsMsgpack(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 3000 {
		v, ok := quick.Value(reflect.TypeFor[kinds](), r)
		if !ok {
			t.Fatal("quick cannot make a kinds")
		}
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		sparse(p.Elem(), r)
		same(t, p.Interface())
	}
}

func TestZeroValuesEncodeAsMsgpack(t *testing.T) {
	same(t, &kinds{})
	// Not addressable: IsZero is called on a copy.
	same(t, struct {
		Z zeroable `msgpack:"z,omitempty"`
	}{})
	same(t, struct {
		Z zeroable `msgpack:"z,omitempty"`
	}{Z: zeroable{0, 0, 1}})
	same(t, &recursive{})
	same(t, (*kinds)(nil))
	same(t, nil)
	same(t, []inner(nil))
	same(t, [0]inner{})
	same(t, &withHidden{A: 1, hidden: 2})
	same(t, withHidden{hidden: 2})
}

func TestRecursiveValuesEncodeAsMsgpack(t *testing.T) {
	at := time.Unix(1700000000, 5)
	v := &recursive{N: 1, At: at, AtP: &at, Next: &recursive{Kids: []recursive{{N: 2}, {}}}, Tree: []*recursive{nil, {N: 3}}}
	same(t, v)
}

func TestLeavesToMsgpackWhatItDoesNotCover(t *testing.T) {
	if _, err := planFor(reflect.TypeFor[*leftToMsgpack]()); err == nil {
		t.Fatal("a plan for a struct with an embedded field and an interface")
	}
	same(t, &leftToMsgpack{inner: inner{A: 1}, Any: inner{B: "x"}})
	same(t, &leftToMsgpack{})
	type tagged struct {
		S string `msgpack:"s,intern"`
	}
	if _, err := planFor(reflect.TypeFor[tagged]()); err == nil {
		t.Fatal("a plan for a field with the intern option")
	}
}

func TestPlanEncodesWithoutAllocating(t *testing.T) {
	v := &kinds{I: 3, S: "s", Zero: zeroable{1}, Inners: []inner{{A: 1}}, Ptr: &inner{}, Omitted: allOmitted{}}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	allocs := testing.AllocsPerRun(100, func() {
		buf.Reset()
		if err := Encode(enc, v); err != nil {
			t.Fatal(err)
		}
	})
	// msgpack's own encoder for a byte array (ByteArr) slices it, which
	// allocates; pack itself allocates nothing.
	if allocs > 1 {
		t.Fatalf("%v allocations per value; want at most 1", allocs)
	}
}

// TestWideStructsEncodeAsMsgpack: a struct of more than 64 fields, whose
// later fields are tested for emptiness as they are written.
func TestWideStructsEncodeAsMsgpack(t *testing.T) {
	fs := make([]reflect.StructField, 70)
	for i := range fs {
		fs[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[int](), Tag: reflect.StructTag(fmt.Sprintf(`msgpack:"f%d,omitempty"`, i))}
	}
	typ := reflect.StructOf(fs)
	for _, set := range [][]int{nil, {0}, {63}, {64}, {69}, {3, 62, 63, 66, 69}} {
		v := reflect.New(typ)
		for _, i := range set {
			v.Elem().Field(i).SetInt(int64(i + 1))
		}
		same(t, v.Interface())
	}
}
