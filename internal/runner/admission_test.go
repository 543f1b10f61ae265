package runner

import (
	"testing"

	"github.com/guardstream/guardstream/processors"
)

// TestRateAdmits: a burst is let in at once, then the rate, by the
// server's clock; bytes count too; a zero rate is no limit.
func TestRateAdmits(t *testing.T) {
	const s = int64(1e9)
	r := Rate{Events: 10, Burst: 5}
	var a processors.Admitted
	admitted := 0
	for range 20 { // 20 events at one instant: the burst
		if r.admit(&a, 1*s, 100) {
			admitted++
		}
	}
	if admitted != 5 {
		t.Errorf("%d of 20 events at once admitted, want the burst, 5", admitted)
	}
	admitted = 0
	for i := range 100 { // 100 events over one second: the rate
		if r.admit(&a, 1*s+int64(i+1)*s/100, 100) {
			admitted++
		}
	}
	if admitted != 10 {
		t.Errorf("%d of 100 events over a second admitted, want the rate, 10", admitted)
	}
	if !r.admit(&a, 1000*s, 100) || a.Events != 4*s {
		t.Errorf("after a long pause the bucket holds %d, want the burst less one, %d", a.Events, 4*s)
	}

	b := Rate{Bytes: 1000, BurstBytes: 1500}
	var ab processors.Admitted
	if !b.admit(&ab, s, 1000) || b.admit(&ab, s, 1000) || !b.admit(&ab, 2*s, 1000) {
		t.Error("byte limit: want 1000 bytes in, the next 1000 out, and in again a second later")
	}
	var free processors.Admitted
	for range 1000 {
		if !(Rate{}).admit(&free, s, 1<<20) {
			t.Fatal("a zero rate refused an event")
		}
	}
}

// TestChargeIsDebt: work an event caused beyond its own bytes (an output
// it referred to) is charged after it, up to one burst each time, into
// debt down to minus one burst, and holds back the events that follow
// until the bucket has refilled: a run reads at most a burst's worth of
// outputs, then the rate.
func TestChargeIsDebt(t *testing.T) {
	const s, ms = int64(1e9), int64(1e6)
	r := Rate{Bytes: 1 << 20, BurstBytes: 2 << 20} // 1 MiB a second, 2 MiB at once
	var a processors.Admitted
	at := s
	for i := range 2 { // two results, each referring to a 64 MiB output
		if !r.admit(&a, at, 200) {
			t.Fatalf("result %d was refused", i+1)
		}
		r.charge(&a, at, 64<<20)
		at += ms
	}
	if a.Bytes > -(2<<20-2048)*nanos {
		t.Errorf("bucket after two reads of 64 MiB: %d bytes, want nearly minus the burst (%d)", a.Bytes/nanos, -(2 << 20))
	}
	if r.admit(&a, at+1500*ms, 200) {
		t.Error("an event 1.5 s after the second read was admitted; its debt of 2 MiB takes 2 s at 1 MiB a second")
	}
	if !r.admit(&a, at+2500*ms, 200) {
		t.Error("an event 2.5 s after the second read was refused")
	}
	var free processors.Admitted
	(Rate{Events: 10, Burst: 10}).charge(&free, s, 1<<30)
	if free.Bytes != 0 {
		t.Errorf("a rate without a byte limit charged %d", free.Bytes)
	}
}

// TestRateIsDeterministic: a bucket replayed from where it was decides the
// same, whatever the gaps between events.
func TestRateIsDeterministic(t *testing.T) {
	r := DefaultAdmission().Run
	var a, b processors.Admitted
	now := int64(1_700_000_000_000_000_000)
	var decided []bool
	for i := range 5000 {
		now += int64(i%7) * 1_234_567
		decided = append(decided, r.admit(&a, now, 300+i%50))
	}
	now = int64(1_700_000_000_000_000_000)
	for i := range 5000 {
		now += int64(i%7) * 1_234_567
		if got := r.admit(&b, now, 300+i%50); got != decided[i] {
			t.Fatalf("event %d: %v, then %v", i, decided[i], got)
		}
	}
	if a != b {
		t.Errorf("buckets differ: %+v, %+v", a, b)
	}
}

// TestShare: each partition enforces its part of a tenant's limit, never
// less than one.
func TestShare(t *testing.T) {
	got := Rate{Events: 1000, Burst: 16, Bytes: 0, BurstBytes: 0}.share(64)
	if got != (Rate{Events: 15, Burst: 1}) {
		t.Errorf("share of 64: %+v", got)
	}
	if err := (Admission{Run: Rate{Events: 10}}).Validate(); err == nil {
		t.Error("a rate without a burst was accepted")
	}
}
