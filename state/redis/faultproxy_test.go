package redis

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// faultProxy is a TCP proxy between the store and Redis that injects the
// network's faults: added latency, resets, and a partition (connections
// and bytes black-holed).
type faultProxy struct {
	ln      net.Listener
	backend string
	mode    atomic.Int32 // a fault
	delay   time.Duration
	mu      sync.Mutex
	conns   map[net.Conn]bool
}

// The faults.
const (
	faultNone      int32 = iota
	faultLatency         // every chunk each way waits delay
	faultReset           // connections are reset (RST), new ones at once
	faultPartition       // nothing passes, nothing is closed
)

func startFaultProxy(t *testing.T, backend string, delay time.Duration) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &faultProxy{ln: ln, backend: backend, delay: delay, conns: map[net.Conn]bool{}}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.closeAll()
	})
	return p
}

func (p *faultProxy) URL() string { return "redis://" + p.ln.Addr().String() + "/0" }

// set changes the fault; a reset also resets the connections open now.
func (p *faultProxy) set(mode int32) {
	p.mode.Store(mode)
	if mode == faultReset {
		p.closeAll()
	}
}

func (p *faultProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with a reset
		}
		c.Close()
		delete(p.conns, c)
	}
}

func (p *faultProxy) track(c net.Conn) {
	p.mu.Lock()
	p.conns[c] = true
	p.mu.Unlock()
}

func (p *faultProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.mode.Load() == faultReset {
			_ = c.(*net.TCPConn).SetLinger(0)
			c.Close()
			continue
		}
		b, err := net.Dial("tcp", p.backend)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c)
		p.track(b)
		go p.pipe(c, b)
		go p.pipe(b, c)
	}
}

// pipe copies src to dst, as the fault in force lets it.
func (p *faultProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for n > 0 {
			switch p.mode.Load() {
			case faultPartition:
				time.Sleep(5 * time.Millisecond) // hold the bytes while the partition lasts
				continue
			case faultLatency:
				time.Sleep(p.delay)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			n = 0
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				_ = dst.Close()
			}
			return
		}
	}
}
