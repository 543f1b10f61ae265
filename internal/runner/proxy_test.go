package runner_test

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// proxy forwards TCP connections to a server, delaying what the server
// sends by a set latency, as a congested server or network would: acks of
// publishes come back late.
type proxy struct {
	ln     net.Listener
	target string
	delay  atomic.Int64 // nanoseconds
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go p.accept()
	return p
}

// URL is the address clients connect to.
func (p *proxy) URL() string { return "nats://" + p.ln.Addr().String() }

// setDelay delays from now on what the server sends by d.
func (p *proxy) setDelay(d time.Duration) { p.delay.Store(int64(d)) }

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go func() { p.copyDelayed(c, s); c.Close() }()
	}
}

// chunk is bytes read from the server and when they are due at the client.
type chunk struct {
	data []byte
	due  time.Time
}

// copyDelayed copies from the server to the client, each read delivered
// the current delay after it was read, in order.
func (p *proxy) copyDelayed(dst io.Writer, src io.Reader) {
	chunks := make(chan chunk, 4096)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{buf[:n], time.Now().Add(time.Duration(p.delay.Load()))}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			return
		}
	}
}
