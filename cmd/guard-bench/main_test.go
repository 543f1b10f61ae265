package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseInts(t *testing.T) {
	for in, want := range map[string][]int{
		"":                      nil,
		"2000, 100000,1000000":  {2000, 100000, 1000000},
		"1000,":                 {1000},
		ints([]int{1, 20, 300}): {1, 20, 300},
	} {
		got, err := parseInts(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseInts(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseInts("2k"); err == nil {
		t.Error("parseInts(2k) did not fail")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-scale", "2k"}, {"-rates", "x"}, {"-pairs", "0"}, {"-base-window", "64", "-base-batch", "128"},
		{"-nats-url", "nats://127.0.0.1:4222", "-server-cpuprofile", "/tmp/p"}} {
		var stderr strings.Builder
		if code := run(args, io.Discard, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2; %s", args, code, stderr.String())
		}
	}
}

// TestBadPolicy checks that a policy guard-bench cannot load stops it
// before it starts a server, with a message that names the file and what
// is wrong in it.
func TestBadPolicy(t *testing.T) {
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte("loop:\n  repeat_limt: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, says string }{
		{"/does/not/exist.yaml", "reading policy"},
		{policy, policy + `: guard: parsing policy`},
		{policy, `unknown field "repeat_limt"`},
	} {
		var stderr strings.Builder
		if code := run([]string{"-policy", tc.path}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("-policy %s: exit %d, stderr %q; want exit 2 and %q", tc.path, code, stderr.String(), tc.says)
		}
	}
}
