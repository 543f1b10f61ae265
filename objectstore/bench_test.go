package objectstore_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/objectstore"
)

// BenchmarkPut stores a new output per iteration (on disk, one replica,
// in-process server), deleting it afterwards outside the timer.
func BenchmarkPut(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			st, js := setup(b, nil)
			ctx := ctxT(b)
			s, err := js.Stream(ctx, objectstore.Stream)
			if err != nil {
				b.Fatal(err)
			}
			data := randomBytes(size, 3)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var n uint64
			for b.Loop() {
				n++
				binary.LittleEndian.PutUint64(data, n) // a new output each time
				if _, err := st.Put(ctx, tenant, data); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := s.Purge(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkPutStored measures Put of an output the bucket holds already:
// the digest and one lookup.
func BenchmarkPutStored(b *testing.B) {
	st, _ := setup(b, nil)
	ctx := ctxT(b)
	data := randomBytes(1<<20, 4)
	if _, err := st.Put(ctx, tenant, data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Put(ctx, tenant, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet reads a 10 MiB output back and checks its digest.
func BenchmarkGet(b *testing.B) {
	st, _ := setup(b, nil)
	ctx := ctxT(b)
	data := randomBytes(10<<20, 5)
	ref, err := st.Put(ctx, tenant, data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Get(ctx, tenant, ref); err != nil {
			b.Fatal(err)
		}
	}
}
