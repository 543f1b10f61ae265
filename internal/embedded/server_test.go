package embedded

import (
	"errors"
	"testing"
	"time"
)

// TestStoreLockedWhileRunning: a second server on a store in use is refused
// before it opens anything; once the first has shut down, the store is free
// at once.
func TestStoreLockedWhileRunning(t *testing.T) {
	dir := t.TempDir()
	first, err := Start(Options{Host: "127.0.0.1", Port: -1, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(Options{Host: "127.0.0.1", Port: -1, StoreDir: dir})
	if !errors.Is(err, ErrStoreInUse) {
		t.Fatalf("second server on %s: %v, want ErrStoreInUse", dir, err)
	}
	t.Logf("second server refused: %v", err)
	first.Shutdown()
	first.WaitForShutdown()
	again, err := Start(Options{Host: "127.0.0.1", Port: -1, StoreDir: dir, Sync: Sync{Always: true}})
	if err != nil {
		t.Fatalf("restart on the released store: %v", err)
	}
	if c := again.JetStreamConfig(); c == nil || !c.SyncAlways {
		t.Errorf("sync always: the server's JetStream config is %+v", c)
	}
	again.Shutdown()
	again.WaitForShutdown()
}

func TestParseSync(t *testing.T) {
	for in, want := range map[string]Sync{
		"always": {Always: true},
		"2m":     {Interval: 2 * time.Minute},
		"100ms":  {Interval: 100 * time.Millisecond},
	} {
		got, err := ParseSync(in)
		if err != nil || got != want || got.String() != want.String() {
			t.Errorf("ParseSync(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "never", "0s", "-1s", "Always"} {
		if _, err := ParseSync(in); !errors.Is(err, ErrSync) {
			t.Errorf("ParseSync(%q): %v, want ErrSync", in, err)
		}
	}
	if got := (Sync{}).String(); got != "2m0s" {
		t.Errorf("zero Sync is %q, want the server's default 2m0s", got)
	}
}
