package redis

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// redisServer is a redis-server of the test's own on a free loopback port,
// with no persistence.
type redisServer struct {
	t    *testing.T
	port int
	cmd  *exec.Cmd
}

// startRedis starts redis-server, or skips the test when it is not
// installed (fails under CI, where .ci/run installs it).
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed (apt-get install redis-server); CI needs it")
		}
		t.Skip("redis-server is not installed: apt-get install redis-server")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &redisServer{t: t, port: port}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no")
	require.NoError(r.t, r.cmd.Start())
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.port))
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("redis-server did not listen: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *redisServer) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

// open returns a Store on r with keys of its own.
func (r *redisServer) open(t *testing.T, cfg Config) *Store {
	t.Helper()
	cfg.URL = r.url()
	if cfg.Prefix == "" {
		cfg.Prefix = "t" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	s, err := Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
