package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadyWithNothingThere(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"ready", "-http", "127.0.0.1:1", "-timeout", "500ms"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "guard-consumer ready:") {
		t.Errorf("ready with nothing listening: exit %d, %q; want exit 1 and the error", code, errOut.String())
	}
}
