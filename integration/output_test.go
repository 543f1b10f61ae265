package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/nats-io/nats.go/jetstream"
)

// bigOutput returns a 10 MiB output of numbered lines.
func bigOutput() (string, int) {
	var b strings.Builder
	lines := 0
	for b.Len() < 10<<20 {
		lines++
		fmt.Fprintf(&b, "line %06d: %s\n", lines, strings.Repeat("x", 48))
	}
	return b.String(), lines
}

// TestLargeOutputThroughTheObjectStore: a 10 MiB output goes through the
// object store; the model receives a bounded view of 500 lines with the
// right pagination metadata and the digest of the full output; page 2 can
// be read without running the tool again; the operator fetches the full
// output back byte for byte.
func TestLargeOutputThroughTheObjectStore(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(10*time.Second)).Start(ctx, "reader", client.RunSpec{Workspace: "/work/acme"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	full, lines := bigOutput()

	v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":"huge.log"}`})
	if err != nil || !v.Allowed() {
		t.Fatalf("call: %+v, %v", v.Decision, err)
	}
	if err := r.Result(ctx, client.Result{Call: v.Call, Out: full}); err != nil {
		t.Fatal(err)
	}
	out, err := r.Output(ctx, v.Call)
	if err != nil {
		t.Fatal(err)
	}
	want := event.Digest([]byte(full))
	tr := out.Trunc
	if tr == nil || tr.LinesShown != 500 || !tr.HasMore || tr.LinesRemaining != int64(lines-500) ||
		tr.TotalLines != int64(lines) || tr.TotalBytes != int64(len(full)) {
		t.Fatalf("truncation %+v; want 500 of %d lines shown, %d remaining, has_more", tr, lines, lines-500)
	}
	if out.Ref == nil || out.Ref.Digest != want || !strings.Contains(out.View, strings.TrimPrefix(want, "sha256:")) {
		t.Fatalf("the view or its reference lacks the full output's digest %s: ref %+v", want, out.Ref)
	}
	if !strings.HasPrefix(out.View, "line 000001:") || strings.Contains(out.View, "line 000501:") {
		t.Errorf("the view does not hold exactly the first 500 lines")
	}
	t.Logf("marker: %s", out.View[strings.LastIndex(strings.TrimRight(out.View, "\n"), "\n")+1:])

	page, err := r.Page(ctx, *out.Ref, tr.LinesShown, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Trunc.Offset != 500 || !strings.HasPrefix(page.Text, "line 000501:") {
		t.Errorf("page 2 starts %q at offset %d; want line 501", page.Text[:20], page.Trunc.Offset)
	}

	got, ref, err := admin.Output(ctx, s.js, s.outputs, "acme", "reader", v.Call)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Digest != want || !bytes.Equal(got, []byte(full)) {
		t.Fatal("the operator's copy differs from the tool's output")
	}
}

// TestSameOutputStoredOnce: two runs producing the same output, one inline
// and one by reference, leave one object in the store.
func TestSameOutputStoredOnce(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	shared := strings.Repeat("the same 40 KiB of output, twice\n", 40<<10/33)
	for i, c := range []*client.Client{
		s.client("acme", client.WithVerdictTimeout(5*time.Second)),
		s.client("acme", client.WithVerdictTimeout(5*time.Second), client.WithInlineLimit(1<<20)),
	} {
		r, err := c.Start(ctx, fmt.Sprintf("twin%d", i), client.RunSpec{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := r.Call(ctx, client.Call{Tool: "cat", Args: `{"path":"notes.txt"}`})
		if err != nil || !v.Allowed() {
			t.Fatal(v, err)
		}
		if err := r.Result(ctx, client.Result{Call: v.Call, Out: shared}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Output(ctx, v.Call); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	st, err := s.js.Stream(ctx, objectstore.Stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := objectstore.Subject("acme", event.Digest([]byte(shared)), 0)
	if info.State.NumSubjects != 1 || info.State.Subjects[first] != 1 {
		t.Errorf("the store holds %v; want the output stored once, under its digest", info.State.Subjects)
	}
}

// TestWholeViewsAreNotCopied: an inline output the model sees whole is not
// copied into the object store, one whose paths the view makes relative is;
// the operator gets either back byte for byte.
func TestWholeViewsAreNotCopied(t *testing.T) {
	s := newSystem(t, 2)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "small", client.RunSpec{Workspace: "/work/acme"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	outputs := map[string]bool{ // output → copied
		"3 files\nmain.go\n":                   false,
		"/work/acme/main.go:3: package main\n": true,
	}
	calls := map[string]string{}
	for out := range outputs {
		v, err := r.Call(ctx, client.Call{Tool: "grep", Args: fmt.Sprintf(`{"pattern":%q}`, out[:4])})
		if err != nil || !v.Allowed() {
			t.Fatalf("call: %+v, %v", v.Decision, err)
		}
		if err := r.Result(ctx, client.Result{Call: v.Call, Out: out}); err != nil {
			t.Fatal(err)
		}
		d, err := r.Output(ctx, v.Call)
		if err != nil {
			t.Fatal(err)
		}
		if whole := d.View == out; whole == outputs[out] {
			t.Errorf("view %q of output %q: whole %v", d.View, out, whole)
		}
		calls[out] = v.Call
	}
	for out, copied := range outputs {
		_, err := s.outputs.Lookup(ctx, "acme", event.Digest([]byte(out)))
		if stored := err == nil; stored != copied {
			t.Errorf("output %q: in the store %v (%v), want %v", out, stored, err, copied)
		}
		got, ref, err := admin.Output(ctx, s.js, s.outputs, "acme", "small", calls[out])
		if err != nil || string(got) != out || ref.Digest != event.Digest([]byte(out)) {
			t.Errorf("the operator fetched %q, %+v, %v; want %q", got, ref, err, out)
		}
	}
}

// TestRoundSettlesInCallOrder: the results of a round of four calls come
// in as 3, 1, 4, 2; the round settles once, listing them 1, 2, 3, 4.
func TestRoundSettlesInCallOrder(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "fanout", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ids := []string{"c1", "c2", "c3", "c4"}
	if err := r.Round(ctx, ids, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if v, err := r.Call(ctx, client.Call{ID: id, Tool: "search", Args: fmt.Sprintf(`{"q":"part %d"}`, i)}); err != nil || !v.Allowed() {
			t.Fatal(v, err)
		}
	}
	for _, id := range []string{"c3", "c1", "c4", "c2"} {
		if err := r.Result(ctx, client.Result{Call: id, Out: "result of " + id}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := r.Settled(ctx, "c3")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(d.Calls) != "[c1 c2 c3 c4]" || len(d.Missing) != 0 {
		t.Errorf("settled %v missing %v; want [c1 c2 c3 c4], none missing", d.Calls, d.Missing)
	}
	s.settle()
	settled := 0
	for _, m := range s.all("GUARD_CONTROL") {
		if decode(t, m).Kind == event.Settled {
			settled++
		}
	}
	if settled != 1 {
		t.Errorf("%d settled decisions, want 1", settled)
	}
}

// TestRoundDeadline: a round whose last result never comes settles at its
// deadline with the missing call marked.
func TestRoundDeadline(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "late", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Round(ctx, []string{"a", "b"}, time.Second); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if v, err := r.Call(ctx, client.Call{ID: id, Tool: "fetch"}); err != nil || !v.Allowed() {
			t.Fatal(v, err)
		}
	}
	if err := r.Result(ctx, client.Result{Call: "a", Out: "ok"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	d, err := r.Settled(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(d.Calls, d.Missing) != "[a b] [b]" {
		t.Errorf("settled %v missing %v; want [a b] with b missing", d.Calls, d.Missing)
	}
	if waited := time.Since(start); waited > 3*time.Second {
		t.Errorf("settled %v after the last result, the deadline was 1s", waited)
	}
}
