package client_test

import (
	"strings"
	"testing"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestNonceIsUnguessable checks what ends each event's Nats-Msg-Id: 128
// random bits, different for every client, and not drawn from the
// sequence nats.go's inboxes come from, which another party may see.
func TestNonceIsUnguessable(t *testing.T) {
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	natstest.Provision(t, js, nil)
	runs := []string{"r1", "r2", "r3"}
	for _, run := range runs {
		startRun(t, nc, run, client.RunSpec{})
	}
	inbox := nc.NewRespInbox()
	nonces := map[string]bool{}
	for _, m := range natstest.Messages(t, js, streams.EventStream) {
		id := m.Header.Get(jetstream.MsgIDHeader)
		nonce := id[strings.LastIndexByte(id, '.')+1:]
		if len(nonce) < 26 { // crypto/rand.Text: 26 base32 digits, 130 bits
			t.Errorf("Nats-Msg-Id %q: a nonce of %d characters, want at least 26", id, len(nonce))
		}
		if strings.Contains(inbox, nonce[:12]) {
			t.Errorf("Nats-Msg-Id %q shares its nonce's prefix with the connection's inbox %s", id, inbox)
		}
		nonces[nonce] = true
	}
	if len(nonces) != len(runs) {
		t.Errorf("%d distinct nonces for %d clients, want one each", len(nonces), len(runs))
	}
}
