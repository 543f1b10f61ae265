package objectstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// setup starts a server and provisions the bucket on it.
func setup(t testing.TB, mod func(*objectstore.Config)) (*objectstore.Store, jetstream.JetStream) {
	t.Helper()
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	cfg := objectstore.DefaultConfig()
	if mod != nil {
		mod(&cfg)
	}
	st, err := objectstore.Provision(ctxT(t), js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st, js
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// randomBytes returns n bytes from a fixed seed.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// streamState returns the outputs (first parts) and the messages the
// stream holds.
func streamState(t testing.TB, js jetstream.JetStream) (outputs int, msgs uint64) {
	t.Helper()
	ctx := ctxT(t)
	s, err := js.Stream(ctx, objectstore.Stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		t.Fatal(err)
	}
	for subj := range info.State.Subjects {
		if strings.HasSuffix(subj, ".0") {
			outputs++
		}
	}
	return outputs, info.State.Msgs
}

const tenant = "acme"

func TestPutGet10MiB(t *testing.T) {
	st, _ := setup(t, nil)
	ctx := ctxT(t)
	data := randomBytes(10<<20, 1)
	ref, err := st.Put(ctx, tenant, data)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Digest != event.Digest(data) || ref.Size != int64(len(data)) {
		t.Fatalf("ref %+v", ref)
	}
	got, err := st.Get(ctx, tenant, ref)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("read back different bytes")
	}
	if got, err := st.Lookup(ctx, tenant, ref.Digest); err != nil || got != ref {
		t.Fatalf("Lookup: %+v, %v", got, err)
	}

	// The empty output is an object too.
	empty, err := st.Put(ctx, tenant, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, tenant, empty); err != nil || len(got) != 0 {
		t.Fatalf("empty output: %q, %v", got, err)
	}
}

func TestPutTwiceStoresOnce(t *testing.T) {
	st, js := setup(t, nil)
	ctx := ctxT(t)
	data := randomBytes(1<<20, 2)
	first, err := st.Put(ctx, tenant, data)
	if err != nil {
		t.Fatal(err)
	}
	objects, msgs := streamState(t, js)
	if objects != 1 || msgs != 8 { // 8 parts of 128 KiB
		t.Fatalf("after one Put: %d objects, %d messages", objects, msgs)
	}
	second, err := st.Put(ctx, tenant, bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Fatalf("refs differ: %+v, %+v", first, second)
	}
	if o, m := streamState(t, js); o != objects || m != msgs {
		t.Fatalf("the second Put stored again: %d objects, %d messages", o, m)
	}
	// Different content is a different object.
	if _, err := st.Put(ctx, tenant, append(bytes.Clone(data), '!')); err != nil {
		t.Fatal(err)
	}
	if o, _ := streamState(t, js); o != 2 {
		t.Fatalf("%d objects after a different output, want 2", o)
	}
}

func TestPage(t *testing.T) {
	st, _ := setup(t, nil)
	ctx := ctxT(t)
	var b strings.Builder
	for i := 1; i <= 1234; i++ {
		fmt.Fprintf(&b, "/ws/src/f%d.go:1: hit\n", i)
	}
	full := b.String()
	ref, err := st.Put(ctx, tenant, []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	var offset int64
	for pages := 1; ; pages++ {
		v, err := st.Page(ctx, tenant, ref, offset, view.Options{Workspace: "/ws"})
		if err != nil {
			t.Fatal(err)
		}
		if v.Trunc.Offset != offset || v.Trunc.TotalLines != 1234 {
			t.Fatalf("page %d: %+v", pages, v.Trunc)
		}
		text := v.Text
		if v.Trunc.HasMore {
			i := strings.LastIndex(text, "\n[truncated: ")
			if i < 0 || !strings.Contains(text[i:], ref.Digest) {
				t.Fatalf("page %d: no marker with the digest", pages)
			}
			text = text[:i+1]
		}
		seen.WriteString(text)
		if !v.Trunc.HasMore {
			if pages != 3 {
				t.Errorf("%d pages, want 3", pages)
			}
			break
		}
		offset += v.Trunc.LinesShown
	}
	if want := strings.ReplaceAll(full, "/ws/", ""); seen.String() != want {
		t.Error("the pages put together are not the output")
	}
}

func TestDigestMismatch(t *testing.T) {
	st, js := setup(t, nil)
	ctx := ctxT(t)
	want, bad := []byte("the real output\n"), []byte("a forged output\n")
	ref := event.OutputRef{Digest: event.Digest(want), Size: int64(len(want))}

	// Another writer of the tenant stores other bytes, of the same size,
	// under want's name.
	msgs, _, err := st.Messages(tenant, bad)
	if err != nil {
		t.Fatal(err)
	}
	msgs[0].Subject, _ = objectstore.Subject(tenant, ref.Digest, 0)
	if _, err := js.PublishMsg(ctx, msgs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, tenant, ref); !errors.Is(err, objectstore.ErrDigestMismatch) {
		t.Fatalf("Get of forged content: %v, want ErrDigestMismatch", err)
	}
	if _, err := st.Get(ctx, tenant, event.OutputRef{Digest: ref.Digest, Size: 3}); !errors.Is(err, objectstore.ErrDigestMismatch) {
		t.Fatalf("Get with the wrong size: %v, want ErrDigestMismatch", err)
	}
	// Another tenant's copy of the output is not this tenant's.
	if _, err := st.Get(ctx, "other", ref); !errors.Is(err, objectstore.ErrNotFound) {
		t.Fatalf("Get as another tenant: %v, want ErrNotFound", err)
	}
	// Upload writes the real one over it.
	if _, err := objectstore.Upload(ctx, js, tenant, want, objectstore.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, tenant, ref); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after Put: %q, %v", got, err)
	}

	if _, err := st.Get(ctx, tenant, event.OutputRef{Digest: event.Digest([]byte("nothing")), Size: 7}); !errors.Is(err, objectstore.ErrNotFound) {
		t.Errorf("Get of a missing output: %v, want ErrNotFound", err)
	}
	for _, d := range []string{"", "md5:abc", "sha256:" + strings.Repeat("A", 64), "sha256:" + strings.Repeat("0", 63)} {
		if _, err := st.Get(ctx, tenant, event.OutputRef{Digest: d}); !errors.Is(err, objectstore.ErrInvalidDigest) {
			t.Errorf("Get(%q): %v, want ErrInvalidDigest", d, err)
		}
	}
}

func TestTooLarge(t *testing.T) {
	st, _ := setup(t, func(c *objectstore.Config) { c.MaxOutputBytes = 1024 })
	if _, err := st.Put(ctxT(t), tenant, make([]byte, 1025)); !errors.Is(err, objectstore.ErrTooLarge) {
		t.Errorf("Put over the limit: %v, want ErrTooLarge", err)
	}
}

func TestProvisionIdempotent(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx := ctxT(t)
	cfg := objectstore.DefaultConfig()
	if _, err := objectstore.Open(ctx, js, cfg); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("Open before Provision: %v, want ErrStreamNotFound", err)
	}
	st, err := objectstore.Provision(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := st.Put(ctx, tenant, []byte("kept"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxAge = 48 * time.Hour
	for range 2 {
		if _, err := objectstore.Provision(ctx, js, cfg); err != nil {
			t.Fatal(err)
		}
	}
	st, err = objectstore.Open(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, tenant, ref); err != nil || string(got) != "kept" {
		t.Fatalf("after provisioning again: %q, %v", got, err)
	}
	if st.MaxAge() != 48*time.Hour {
		t.Fatalf("the update did not take: max age %v", st.MaxAge())
	}

	bad := cfg
	bad.Replicas, bad.ChunkSize = 2, 10
	if _, err := objectstore.Provision(ctx, js, bad); err == nil {
		t.Error("Provision accepted an invalid config")
	}
}

// TestMessages: the pipelined write path stores an output Get reads like
// one Put stored, in one message when it fits a chunk; writing it again
// replaces its parts.
func TestMessages(t *testing.T) {
	st, js := setup(t, nil)
	ctx := ctxT(t)
	for _, data := range [][]byte{[]byte("total 3\nmain.go\ngo.mod\n"), {}, randomBytes(100<<10, 7), randomBytes(300<<10, 8)} {
		var ref event.OutputRef
		for range 3 {
			msgs, r, err := st.Messages(tenant, data)
			if err != nil {
				t.Fatal(err)
			}
			if want := max(1, (len(data)+128<<10-1)/(128<<10)); len(msgs) != want {
				t.Fatalf("%d bytes in %d messages, want %d", len(data), len(msgs), want)
			}
			ref = r
			for _, m := range msgs {
				if _, err := js.PublishMsg(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
		}
		if ref.Digest != event.Digest(data) || ref.Size != int64(len(data)) {
			t.Fatalf("ref %+v for %d bytes", ref, len(data))
		}
		got, err := st.Get(ctx, tenant, ref)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Get after Messages: %d bytes, %v; want %d bytes", len(got), err, len(data))
		}
	}
	outputs, msgs := streamState(t, js)
	if outputs != 4 || msgs != 6 {
		t.Errorf("%d outputs in %d messages; want 4 outputs in 6 messages (one of them in 3 parts)", outputs, msgs)
	}
	if _, _, err := st.Messages(tenant, make([]byte, objectstore.DefaultConfig().MaxOutputBytes+1)); !errors.Is(err, objectstore.ErrTooLarge) {
		t.Errorf("an output over the limit: %v, want ErrTooLarge", err)
	}
}

// A first part whose headers claim more than the limits allow is refused
// before anything more is read.
func TestForgedHeaders(t *testing.T) {
	st, js := setup(t, func(c *objectstore.Config) { c.MaxOutputBytes = 1 << 20 })
	ctx := ctxT(t)
	ref := event.OutputRef{Digest: event.Digest([]byte("x")), Size: 1}
	subj, _ := objectstore.Subject(tenant, ref.Digest, 0)
	for _, h := range []nats.Header{
		{objectstore.HeaderSize: {"1"}},
		{objectstore.HeaderSize: {"1"}, objectstore.HeaderParts: {"0"}},
		{objectstore.HeaderSize: {"1"}, objectstore.HeaderParts: {"1000000"}},
		{objectstore.HeaderSize: {"2000000"}, objectstore.HeaderParts: {"1"}},
	} {
		m := nats.NewMsg(subj)
		m.Data, m.Header = []byte("x"), h
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, tenant, ref); err == nil {
			t.Errorf("headers %v: Get read it", h)
		} else {
			t.Logf("headers %v: %v", h, err)
		}
	}
}

// An agent may store anything on its output subjects. Parts smaller than
// MinChunkSize, or of uneven sizes, are refused, even when the bytes add
// up to the digest: they would make one Get a read per KiB, a partition
// held up by one tenant's result.
func TestForgedLayout(t *testing.T) {
	st, js := setup(t, nil)
	ctx := ctxT(t)
	store := func(data []byte, sizes ...int) event.OutputRef {
		ref := event.OutputRef{Digest: event.Digest(data), Size: int64(len(data))}
		off := make([]int, len(sizes)+1)
		for i, n := range sizes {
			off[i+1] = off[i] + n
		}
		for i := len(sizes) - 1; i >= 0; i-- {
			subj, _ := objectstore.Subject(tenant, ref.Digest, i)
			m := nats.NewMsg(subj)
			m.Data = data[off[i]:off[i+1]]
			if i == 0 {
				m.Header.Set(objectstore.HeaderSize, fmt.Sprint(len(data)))
				m.Header.Set(objectstore.HeaderParts, fmt.Sprint(len(sizes)))
			}
			if _, err := js.PublishMsg(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		return ref
	}
	kib := 1 << 10
	cases := []struct {
		name  string
		data  []byte
		sizes []int
	}{
		{"256 parts of 1 KiB", randomBytes(256*kib, 7), slices.Repeat([]int{kib}, 256)},
		{"a short middle part", randomBytes(192*kib, 8), []int{64 * kib, 32 * kib, 96 * kib}},
		{"a long last part", randomBytes(200*kib, 9), []int{64 * kib, 136 * kib}},
	}
	for _, tc := range cases {
		ref := store(tc.data, tc.sizes...)
		if _, err := st.Get(ctx, tenant, ref); !errors.Is(err, objectstore.ErrDigestMismatch) {
			t.Errorf("%s: Get: %v, want ErrDigestMismatch", tc.name, err)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	// Parts of 64 KiB, the smallest allowed, and a shorter last one read.
	data := randomBytes(150*kib, 11)
	ref := store(data, 64*kib, 64*kib, 22*kib)
	if got, err := st.Get(ctx, tenant, ref); err != nil || !bytes.Equal(got, data) {
		t.Errorf("parts of 64, 64 and 22 KiB: %d bytes, %v", len(got), err)
	}
}
