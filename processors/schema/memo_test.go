package schema

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/processors/schema/repair"
)

func TestMemo(t *testing.T) {
	var m memo
	text := func(i int) string { return fmt.Sprintf(`{"type":"object","required":["p%d"]}`, i) }
	first := m.compile(text(0))
	if m.compile(text(0)) != first {
		t.Fatal("the same text compiled twice")
	}
	for i := 1; i <= 2*memoEntries+10; i++ {
		m.compile(text(i))
		if len(m.cur) > memoEntries || len(m.old) > memoEntries {
			t.Fatalf("after %d schemas the memo holds %d + %d", i+1, len(m.cur), len(m.old))
		}
	}
	// Whatever was forgotten compiles again to a schema that decides alike.
	again := m.compile(text(0))
	for _, args := range []string{`{}`, `{"p0":1}`, `{"p1":1}`} {
		if a, b := first.Check(args, nil), again.Check(args, nil); a.Status != b.Status || len(a.Diags) != len(b.Diags) {
			t.Errorf("%s: %v and %v", args, a, b)
		}
	}
	// A schema used from the old generation moves back to the current one,
	// without compiling again.
	m = memo{}
	s0 := m.compile(text(0))
	for i := 1; i < memoEntries; i++ {
		m.put(text(i), &repair.Schema{})
	}
	m.put("rotate", &repair.Schema{})
	if m.old[text(0)] != s0 || m.cur[text(0)] != nil {
		t.Fatal("expected the first generation to have rotated")
	}
	if got := m.compile(text(0)); got != s0 || m.cur[text(0)] != s0 {
		t.Error("a schema used from the old generation did not move back")
	}
}
