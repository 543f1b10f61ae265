package client_test

import (
	"io"
	"net"
	"sync"
	"testing"
)

// proxy forwards TCP connections on loopback to a server, and misbehaves
// as a network does: it can lose everything the server sends (mute), cut
// every connection, and refuse new ones (down).
type proxy struct {
	ln       net.Listener
	upstream string

	mu    sync.Mutex
	conns []net.Conn
	mute  bool
	held  bool // refusing connections
}

func startProxy(t *testing.T, upstream string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, upstream: upstream}
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	go p.accept()
	return p
}

// URL returns the address clients connect to.
func (p *proxy) URL() string { return "nats://" + p.ln.Addr().String() }

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		held := p.held
		p.mu.Unlock()
		if held {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); up.Close() }()
		go p.down(c, up)
	}
}

// down copies what the server sends to the client, unless muted.
func (p *proxy) down(c, up net.Conn) {
	defer c.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := up.Read(buf)
		p.mu.Lock()
		mute := p.mute
		p.mu.Unlock()
		if n > 0 && !mute {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// setMute starts or stops losing what the server sends.
func (p *proxy) setMute(m bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mute = m
}

// setDown starts or stops refusing connections; going down cuts the
// ones there are.
func (p *proxy) setDown(d bool) {
	p.mu.Lock()
	p.held = d
	p.mu.Unlock()
	if d {
		p.cut()
	}
}

// cut closes every connection; clients reconnect through the proxy.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
