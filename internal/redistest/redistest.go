// Package redistest runs a redis-server of a test's own on a free loopback
// port, without persistence unless the test asks for it: the Redis state's
// tests and dspd's replicas tests share it.
package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Server is one redis-server.
type Server struct {
	T     testing.TB
	Port  int
	Extra []string // more redis-server arguments
	cmd   *exec.Cmd
}

// Need skips the test when redis-server is not installed, and fails it
// under CI (scripts/deps.sh installs it).
func Need(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed (scripts/deps.sh installs it); CI needs it")
		}
		t.Skip("redis-server is not installed: apt-get install redis-server")
	}
}

// FreePort returns a loopback port nothing listens on.
func FreePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// New starts a redis-server with extra arguments, stopped at the test's
// end.
func New(t testing.TB, extra ...string) *Server {
	t.Helper()
	Need(t)
	r := &Server{T: t, Port: FreePort(t), Extra: extra}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// URL is the server's redis:// URL.
func (r *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.Port) }

// Addr is its host:port.
func (r *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.Port) }

// Start starts (or restarts) the server and waits until it listens.
func (r *Server) Start() {
	r.T.Helper()
	r.cmd = exec.Command("redis-server", append([]string{"--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no"}, r.Extra...)...)
	require.NoError(r.T, r.cmd.Start())
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", r.Addr())
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			r.T.Fatalf("redis-server did not listen: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop kills the server (SIGKILL) and waits for it to be gone.
func (r *Server) Stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}
