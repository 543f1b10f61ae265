package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/internal/runner"
)

func TestByteSizes(t *testing.T) {
	for in, want := range map[string]int64{
		"1GiB": 1 << 30, "512MiB": 512 << 20, "64KiB": 64 << 10, "2TiB": 2 << 40,
		"3G": 3 << 30, "100M": 100 << 20, "8K": 8 << 10, "1048576": 1 << 20, "0": 0, " 16 MiB ": 16 << 20, "1500B": 1500,
	} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1.5GiB", "-1MiB", "12XB", "GiB", "9223372036854775807K"} {
		if n, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, n)
		}
	}
	for n, want := range map[int64]string{1 << 30: "1GiB", 256 << 20: "256MiB", 1536 << 20: "1536MiB", 1000: "1000", 0: "0", 3 << 40: "3TiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// The limit flags land in the streams' and the output store's configs,
// and -max-event-bytes caps AGENT_EVENTS's messages as it does the
// runner's events.
func TestLimitFlags(t *testing.T) {
	cfg, _, err := parse([]string{
		"-event-max-bytes", "2GiB", "-control-max-bytes", "100MiB", "-dead-letter-max-bytes", "64MiB",
		"-timer-max-bytes", "32MiB", "-runs-max-bytes", "16MiB", "-output-max-bytes", "4GiB",
		"-max-msgs-per-subject", "5000", "-max-event-bytes", "131072",
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sc, oc := cfg.Streams, cfg.Outputs
	for name, got := range map[string][2]int64{
		"event":       {sc.EventMaxBytes, 2 << 30},
		"control":     {sc.ControlMaxBytes, 100 << 20},
		"dead letter": {sc.DeadLetterMaxBytes, 64 << 20},
		"timer":       {sc.TimerMaxBytes, 32 << 20},
		"runs":        {sc.RunsMaxBytes, 16 << 20},
		"output":      {oc.MaxBytes, 4 << 30},
		"per subject": {sc.MaxMsgsPerSubject, 5000},
		"event size":  {int64(sc.EventMaxMsgSize), 128 << 10},
		"runner":      {int64(cfg.Runner.MaxEventBytes), 128 << 10},
	} {
		if got[0] != got[1] {
			t.Errorf("%s: %d, want %d", name, got[0], got[1])
		}
	}
	if got := sc.EventStreamConfig().MaxMsgSize; got != 129<<10 {
		t.Errorf("AGENT_EVENTS's largest message: %d, want 128 KiB of event and 1 KiB of headers", got)
	}
}

func TestLimitFlagMistakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-event-max-bytes", "lots"}, `"lots" is not a size`},
		{[]string{"-event-max-bytes", "512KiB"}, "event_max_bytes is 524288 bytes; want at least 1048576"},
		{[]string{"-runs-max-bytes", "0"}, "runs_max_bytes is 0 bytes"},
		{[]string{"-max-msgs-per-subject", "10"}, "max_msgs_per_subject is 10; want at least 100"},
		{[]string{"-max-event-bytes", "2000000"}, "event_max_msg_size is 2000000 bytes; want 1024 to 1047552"},
		{[]string{"-output-max-bytes", "1MiB"}, "objectstore.max_bytes is 1048576 bytes, less than one output"},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut.String(), tc.says)
		}
	}
}

func TestRateFlags(t *testing.T) {
	var r runner.Rate
	f := rateFlag{&r}
	if err := f.Set("events=100, burst=500,bytes=1MiB,burst-bytes=8MiB"); err != nil {
		t.Fatal(err)
	}
	if want := (runner.Rate{Events: 100, Burst: 500, Bytes: 1 << 20, BurstBytes: 8 << 20}); r != want {
		t.Errorf("got %+v, want %+v", r, want)
	}
	if got := f.String(); got != "events=100,burst=500,bytes=1MiB,burst-bytes=8MiB" {
		t.Errorf("String() = %q", got)
	}
	for _, bad := range []string{"events", "rate=5", "events=-1", "bytes=lots"} {
		if err := f.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
