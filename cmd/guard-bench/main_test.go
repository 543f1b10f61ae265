package main

import (
	"io"
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
