package health

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestEndpoints(t *testing.T) {
	var notReady atomic.Pointer[error]
	cause := errors.New("partitions [3] recovering")
	notReady.Store(&cause)
	ready := func() error {
		if p := notReady.Load(); p != nil {
			return *p
		}
		return nil
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "m 1\n") })
	s, err := Serve("127.0.0.1:0", ready, metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := "http://" + s.Addr()
	if code, body := get(t, base+"/livez"); code != 200 {
		t.Errorf("/livez: %d %q", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "partitions [3] recovering") {
		t.Errorf("/readyz while recovering: %d %q, want 503 with the reason", code, body)
	}
	notReady.Store(nil)
	if code, body := get(t, base+"/readyz"); code != 200 {
		t.Errorf("/readyz when ready: %d %q", code, body)
	}
	if code, body := get(t, base+"/metrics"); code != 200 || body != "m 1\n" {
		t.Errorf("/metrics: %d %q", code, body)
	}
	if code, _ := get(t, base+"/nothing"); code != 404 {
		t.Errorf("/nothing: %d, want 404", code)
	}
	if _, err := Serve(s.Addr(), ready, metrics); !errors.Is(err, ErrListen) {
		t.Errorf("second server on %s: %v, want ErrListen", s.Addr(), err)
	}
}
