package service

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{context.DeadlineExceeded, true},
		{nats.ErrNoResponders, true},
		{&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, true},
		// A stream another instance is creating, before every server has it.
		{fmt.Errorf("runner: stream GUARD_OUTPUTS: %w (provision the streams first)", jetstream.ErrStreamNotFound), true},
		{fmt.Errorf("streams: invalid config: %w", errors.New("partitions must be positive")), false},
		{&jetstream.APIError{Code: 400, ErrorCode: 10058, Description: "stream name already in use with a different configuration"}, false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("transient(%v) = %t, want %t", tc.err, got, tc.want)
		}
	}
}
