package client

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestRetry(t *testing.T) {
	for _, tc := range []struct {
		err         error
		provisioned bool
		want        failure
	}{
		{context.DeadlineExceeded, true, again},
		{context.Canceled, true, again},
		{nats.ErrTimeout, true, again},
		{nats.ErrReconnectBufExceeded, true, again},
		{jetstream.ErrNoStreamResponse, true, again},
		{fmt.Errorf("wrapped: %w", nats.ErrNoResponders), true, again},
		{jetstream.ErrNoStreamResponse, false, unprovisioned},
		{nats.ErrConnectionClosed, true, giveUp},
		{nats.ErrConnectionDraining, true, giveUp},
		{fmt.Errorf("nats: %w", &jetstream.APIError{Code: 503, Description: "JetStream system temporarily unavailable"}), true, again},
		{fmt.Errorf("nats: %w", &jetstream.APIError{Code: 409, ErrorCode: 10158, Description: "duplicate message id is in process"}), true, again},
		{fmt.Errorf("nats: %w", &jetstream.APIError{Code: 400, Description: "maximum messages exceeded"}), true, giveUp},
		{errors.New("something else"), true, giveUp},
	} {
		if got := retry(tc.err, tc.provisioned); got != tc.want {
			t.Errorf("retry(%v, provisioned %t) = %d, want %d", tc.err, tc.provisioned, got, tc.want)
		}
	}
}
