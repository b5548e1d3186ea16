//go:build linux

package synchelper

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// errClosed is why a closed Helper's syncs are done in-process.
var errClosed = errors.New("sync helper closed")

// Helper is a running helper process and dspd's end of its socket. Its
// methods are safe for concurrent use.
type Helper struct {
	cfg    Config
	cmd    *exec.Cmd
	conn   *net.UnixConn
	exited chan struct{} // closed once the process has been waited for

	files  atomic.Uint64 // the last file number given out
	synced atomic.Int64  // syncs the helper answered (done or failed)

	mu      sync.Mutex
	pending map[uint64]chan reply // by request id
	nextID  uint64
	lost    error // why the helper is gone; nil while it serves
	running bool  // past the hello: a loss from now on is logged
	closing bool  // Close stops it: the loss is not news

	directOnce sync.Once // the log line of a file synced in-process
}

// Start starts the helper process and waits for its hello.
func Start(cfg Config) (*Helper, error) {
	cfg = cfg.withDefaults()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sync helper: socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "sync helper socket"), os.NewFile(uintptr(pair[1]), "sync helper socket")
	c, err := net.FileConn(ours)
	ours.Close() // FileConn made its own copy
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("sync helper: %w", err)
	}
	mode := modeServe
	if cfg.testOps {
		mode = modeTest
	}
	h := &Helper{cfg: cfg, conn: c.(*net.UnixConn), exited: make(chan struct{}), pending: map[uint64]chan reply{}}
	h.cmd = &exec.Cmd{Path: cfg.Path, Args: []string{helperName}, Env: append(os.Environ(), envVar+"="+mode),
		ExtraFiles: []*os.File{theirs}, Stderr: os.Stderr} // fd 3; a crash's trace goes where dspd's log goes
	err = h.cmd.Start()
	theirs.Close() // the child's copy is its own: its exit is our EOF
	if err != nil {
		h.conn.Close()
		return nil, fmt.Errorf("sync helper: %w", err)
	}
	go func() {
		_ = h.cmd.Wait()
		close(h.exited)
	}()
	go h.read()
	if err := h.hello(); err != nil {
		h.lose(err)
		_ = h.cmd.Process.Kill() // whatever it runs, it is not a helper
		<-h.exited
		return nil, err
	}
	return h, nil
}

// hello waits for the helper's first answer, within StartTimeout.
func (h *Helper) hello() error {
	ch := h.send(request{op: opHello}, nil, true)
	t := time.NewTimer(h.cfg.StartTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		if r.status != statusOK || r.value != protocolVersion {
			return fmt.Errorf("sync helper %s: no hello (status %d, version %d): does its main call synchelper.ServeIfHelper?",
				h.cfg.Path, r.status, r.value)
		}
	case <-t.C:
		return fmt.Errorf("sync helper %s: no hello within %v: does its main call synchelper.ServeIfHelper?", h.cfg.Path, h.cfg.StartTimeout)
	}
	h.mu.Lock()
	h.running = true
	h.mu.Unlock()
	return nil
}

// Synced returns how many syncs the helper has answered, done or failed.
func (h *Helper) Synced() int64 { return h.synced.Load() }

// Close stops the helper: its socket closed, it exits. Syncs after Close
// are done in-process.
func (h *Helper) Close() error {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	return h.stop()
}

// stop closes the socket and waits for the process, killing it after
// StopTimeout.
func (h *Helper) stop() error {
	h.lose(errClosed)
	t := time.NewTimer(h.cfg.StopTimeout)
	defer t.Stop()
	select {
	case <-h.exited:
		return nil
	case <-t.C:
		_ = h.cmd.Process.Kill()
		<-h.exited
		return fmt.Errorf("sync helper: still running %v after its socket closed; killed", h.cfg.StopTimeout)
	}
}

// send sends r, with rights (a descriptor) when not nil, and returns where
// its answer will come when want is set. A lost helper's answer is
// statusLost at once.
func (h *Helper) send(r request, rights []byte, want bool) <-chan reply {
	ch := make(chan reply, 1)
	h.mu.Lock()
	if h.lost != nil {
		h.mu.Unlock()
		ch <- reply{status: statusLost}
		return ch
	}
	h.nextID++
	r.id = h.nextID
	if want {
		h.pending[r.id] = ch
	}
	h.mu.Unlock()
	var b [messageSize]byte
	r.encode(&b)
	// One packet, whole or not at all; a full socket buffer waits in the
	// netpoller, holding no P.
	if _, _, err := h.conn.WriteMsgUnix(b[:], rights, nil); err != nil {
		h.lose(fmt.Errorf("sync helper: send: %w", err)) // answers ch with statusLost
	}
	return ch
}

// read hands each answer to its caller, until the socket fails.
func (h *Helper) read() {
	b := make([]byte, messageSize+1)
	for {
		n, _, _, _, err := h.conn.ReadMsgUnix(b, nil)
		switch {
		case errors.Is(err, io.EOF) || err == nil && n == 0:
			h.lose(fmt.Errorf("sync helper: %w: it exited", io.EOF))
			return
		case err != nil:
			h.lose(fmt.Errorf("sync helper: receive: %w", err))
			return
		case n != messageSize:
			h.lose(fmt.Errorf("sync helper: an answer of %d bytes, want %d", n, messageSize))
			return
		}
		r := decodeReply(b[:n])
		h.mu.Lock()
		ch := h.pending[r.id]
		delete(h.pending, r.id)
		h.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// lose marks the helper gone (once): the syncs waiting for an answer are
// answered statusLost, and so is every later one, so that their callers
// sync in-process. A loss while running is logged and reported.
func (h *Helper) lose(why error) {
	h.mu.Lock()
	if h.lost != nil {
		h.mu.Unlock()
		return
	}
	h.lost = why
	waiting := h.pending
	h.pending = nil
	report := h.running && !h.closing
	h.mu.Unlock()
	for _, ch := range waiting {
		ch <- reply{status: statusLost}
	}
	_ = h.conn.Close() // the helper reads EOF and exits
	if report {
		h.cfg.Logger.Error("sync helper lost: fsync runs in-process from now on, holding a P while it waits for the disk",
			"err", why)
		if h.cfg.OnLost != nil {
			h.cfg.OnLost(why)
		}
	}
}

// direct logs, once, that a file is synced in-process because the helper
// has no descriptor for it.
func (h *Helper) direct(name string) {
	h.directOnce.Do(func() {
		h.cfg.Logger.Warn("sync helper: a file's descriptor did not reach the helper; that file is synced in-process", "file", name)
	})
}
