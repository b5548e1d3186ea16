//go:build linux

package synchelper

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// envVar, set in the helper's environment, makes ServeIfHelper serve.
const envVar = "DSPD_SYNC_HELPER"

// envVar's values: serve, or serve with the tests' requests too.
const (
	modeServe = "1"
	modeTest  = "test"
)

// helperName is the helper's argv[0], what ps shows.
const helperName = "dspd-sync-helper"

// helperProcs is the helper's GOMAXPROCS: syncs in the kernel at once
// while the goroutine reading requests still has a P.
const helperProcs = 8

// ServeIfHelper returns at once in any process but a helper Start
// started; in that one it serves syncs until its socket reaches EOF, then
// exits. A program Start runs as its helper calls it first thing in main
// (and a test binary in TestMain), before flags or anything else.
func ServeIfHelper() {
	mode := os.Getenv(envVar)
	if mode != modeServe && mode != modeTest {
		return
	}
	os.Exit(serve(os.NewFile(3, "sync helper socket"), mode == modeTest))
}

// serve is the helper's life; it returns its exit status.
func serve(sock *os.File, testOps bool) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP) // dspd's to act on; EOF ends the helper
	runtime.GOMAXPROCS(helperProcs)
	c, err := net.FileConn(sock)
	sock.Close()
	conn, ok := c.(*net.UnixConn)
	if err != nil || !ok {
		fmt.Fprintf(os.Stderr, "%s: descriptor 3 is not its socket: %v\n", helperName, err)
		return 2
	}
	s := &server{conn: conn, testOps: testOps, files: map[uint64]*heldFile{}}
	return s.loop()
}

// server is the helper's side of the socket.
type server struct {
	conn    *net.UnixConn
	testOps bool
	files   map[uint64]*heldFile // by dspd's number; the loop's alone
	gate    gate                 // the tests' hold
}

// heldFile is the helper's copy of one of dspd's files.
type heldFile struct {
	f         *os.File     // Close closes the descriptor once no sync uses it
	syncRange bool         // SyncTo is sync_file_range (ext2/3/4), as vfs.Default decides
	syncs     atomic.Int64 // syncs attempted
}

// loop reads the requests until EOF.
func (s *server) loop() int {
	b := make([]byte, messageSize+1)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, flags, _, err := s.conn.ReadMsgUnix(b, oob)
		if errors.Is(err, io.EOF) || err == nil && n == 0 {
			return 0 // dspd closed its end, exited or was killed
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", helperName, err)
			return 2
		}
		fds := rights(oob[:oobn])
		if n != messageSize || flags&unix.MSG_TRUNC != 0 {
			closeAll(fds)
			fmt.Fprintf(os.Stderr, "%s: a request of %d bytes, want %d\n", helperName, n, messageSize)
			return 2
		}
		// A descriptor refused for lack of room (MSG_CTRUNC) leaves the
		// file unknown: its syncs are answered statusNoFile.
		s.handle(decodeRequest(b[:n]), fds)
	}
}

// rights returns the descriptors a message carried.
func rights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}

// handle does one request: the first of a file brings its descriptor.
func (s *server) handle(r request, fds []int) {
	if len(fds) > 0 {
		closeAll(fds[1:])
		s.forget(r.file)
		s.files[r.file] = newHeldFile(fds[0])
	}
	switch r.op {
	case opHello:
		s.answer(reply{id: r.id, value: protocolVersion})
	case opFsync, opFdatasync, opSyncTo:
		hf := s.files[r.file]
		if hf == nil {
			s.answer(reply{id: r.id, status: statusNoFile})
			return
		}
		go s.sync(r, hf)
	case opForget:
		s.forget(r.file)
	default:
		if !s.testOps || !s.test(r) {
			s.answer(reply{id: r.id, status: statusRefused})
		}
	}
}

// forget closes the helper's copy of a file.
func (s *server) forget(id uint64) {
	if hf := s.files[id]; hf != nil {
		delete(s.files, id)
		_ = hf.f.Close() // the descriptor goes once the syncs using it end
	}
}

// sync does one sync and answers it.
func (s *server) sync(r request, hf *heldFile) {
	s.gate.pass(s)
	full, err := hf.do(r.op, r.arg)
	a := reply{id: r.id, full: full}
	var errno syscall.Errno
	switch {
	case err == nil:
		hf.syncs.Add(1)
	case errors.As(err, &errno):
		hf.syncs.Add(1)
		a.status, a.errno = statusErrno, uint32(errno)
	default: // the copy was closed meanwhile: not attempted
		a.status = statusNoFile
	}
	s.answer(a)
}

// answer sends one answer; when dspd is gone the helper is done.
func (s *server) answer(a reply) {
	var b [messageSize]byte
	a.encode(&b)
	if _, err := s.conn.Write(b[:]); err != nil {
		os.Exit(0)
	}
}

// test does the tests' requests; false for an operation it does not know.
func (s *server) test(r request) bool {
	switch r.op {
	case opSyncs:
		a := reply{id: r.id}
		if hf := s.files[r.file]; hf != nil {
			a.value = hf.syncs.Load()
		}
		s.answer(a)
	case opHold:
		s.gate.hold()
		s.answer(reply{id: r.id})
	case opWaitHeld:
		s.gate.waitHeld(s, r.id)
	case opRelease:
		s.gate.release()
		s.answer(reply{id: r.id})
	case opDrop:
		s.forget(r.file)
		s.answer(reply{id: r.id})
	default:
		return false
	}
	return true
}

// gate holds syncs for the tests: closed, a sync waits at it until it
// opens.
type gate struct {
	mu      sync.Mutex
	open    chan struct{} // nil: syncs pass
	held    int
	waiters []uint64 // opWaitHeld requests to answer at the next held sync
}

func (g *gate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open == nil {
		g.open = make(chan struct{})
	}
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open != nil {
		close(g.open)
		g.open, g.held = nil, 0
	}
}

func (g *gate) waitHeld(s *server, id uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held > 0 {
		s.answer(reply{id: id})
		return
	}
	g.waiters = append(g.waiters, id)
}

// pass waits while the gate is closed.
func (g *gate) pass(s *server) {
	g.mu.Lock()
	open := g.open
	if open == nil {
		g.mu.Unlock()
		return
	}
	g.held++
	waiters := g.waiters
	g.waiters = nil
	g.mu.Unlock()
	for _, id := range waiters {
		s.answer(reply{id: id})
	}
	<-open
}
