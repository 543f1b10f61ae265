package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfilerAnswersEveryRequest drives the server child's profiler as
// startServer's child does: each request gets one answer line, and a
// request out of turn an error rather than a second profile or a crash.
func TestProfilerAnswersEveryRequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.pprof")
	reqs := strings.Join([]string{"stop", "profile " + path, "profile " + path + "2", "stop", "stop", "flame", "profile /no/such/dir/p"}, "\n")
	var out strings.Builder
	profiler(strings.NewReader(reqs), &out)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{"error", "profiling", "error", "stopped", "error", "error", "error"}
	if len(got) != len(want) {
		t.Fatalf("answers %q, want one per request: %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("answer %d is %q, want %s", i+1, got[i], want[i])
		}
	}
	if b, err := os.ReadFile(path); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the profile: %d bytes, %v; want a gzipped profile", len(b), err)
	}
	if _, err := os.Stat(path + "2"); err == nil {
		t.Error("a second profile was started while one was running")
	}
}
