package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// asDspd, set in a child's environment, makes the test binary run dspd's
// main instead of the tests: the kill -9 tests run dspd as a process of
// its own, which they can kill.
const asDspd = "DSPD_TEST_RUN_AS_DSPD"

func TestMain(m *testing.M) {
	if os.Getenv(asDspd) == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is dspd built as it ships (without the race detector, which the
// test binary may carry), for the tests that measure how fast it is.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// shippedDspd returns the path of dspd built as it ships, building it once
// per test process. The race detector makes dspd several times slower (a
// change of 1,160 campaigns put in service in ~120 ms instead of ~15 ms),
// and under a loaded CI machine past a bound the product keeps.
func shippedDspd(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "dspd-shipped-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "dspd")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	require.NoError(t, built.err)
	return built.path
}

// child is dspd running in a process of its own.
type child struct {
	cmd           *exec.Cmd
	public, admin string        // bound addresses
	ready         time.Duration // from the start to /readyz answering 200
	exited        chan struct{}
	mu            sync.Mutex
	log           []string // the last lines it wrote
}

var listeningLine = regexp.MustCompile(`msg="dspd listening" public=(\S+) admin=(\S+)`)

// startChild starts dspd with args and waits until /readyz answers 200.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startBinary(t, os.Args[0], args...)
}

// startBinary is startChild for the dspd at path: the test binary (run as
// dspd) or shippedDspd's.
func startBinary(t *testing.T, path string, args ...string) *child {
	t.Helper()
	if f := os.Getenv("DSPD_FRONT_END"); f != "" {
		args = append([]string{"-http", f}, args...) // make test runs these tests on both front ends
	}
	c := &child{cmd: exec.Command(path, args...), exited: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), asDspd+"=1")
	stderr, err := c.cmd.StderrPipe()
	require.NoError(t, err)
	began := time.Now()
	require.NoError(t, c.cmd.Start())
	addrs := make(chan [2]string, 1)
	go c.follow(stderr, addrs)
	t.Cleanup(func() { c.kill() })
	select {
	case a := <-addrs:
		c.public, c.admin = a[0], a[1]
	case <-c.exited:
		t.Fatalf("dspd exited before listening:\n%s", c.lastLines())
	case <-time.After(time.Minute):
		t.Fatalf("dspd did not listen within a minute:\n%s", c.lastLines())
	}
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get("http://" + c.admin + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				c.ready = time.Since(began)
				return c
			}
		}
		require.True(t, time.Now().Before(deadline), "dspd not ready within a minute:\n%s", c.lastLines())
		select {
		case <-c.exited:
			t.Fatalf("dspd exited before it was ready:\n%s", c.lastLines())
		case <-time.After(5 * time.Millisecond): // polling a server from outside: there is nothing to wait on
		}
	}
}

// follow reads the child's log, reports its listening addresses and
// closes exited when the process has gone.
func (c *child) follow(r io.Reader, addrs chan<- [2]string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := listeningLine.FindStringSubmatch(line); m != nil {
			addrs <- [2]string{m[1], m[2]}
		}
		c.mu.Lock()
		c.log = append(c.log, line)
		if len(c.log) > 40 {
			c.log = c.log[1:]
		}
		c.mu.Unlock()
	}
	_ = c.cmd.Wait()
	close(c.exited)
}

func (c *child) lastLines() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.log, "\n")
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// stop sends SIGTERM and waits for the process to exit (within a minute).
func (c *child) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-c.exited:
	case <-time.After(time.Minute):
		t.Fatalf("dspd did not stop within a minute of SIGTERM:\n%s", c.lastLines())
	}
}
