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
	t     *testing.T
	port  int
	extra []string // more redis-server arguments
	cmd   *exec.Cmd
}

// target is a Redis the tests run against: one server or a cluster.
type target interface{ url() string }

// targets are the Redis deployments every shared-state test runs on: one
// redis-server, and a Redis Cluster of three masters.
func targets(t *testing.T) map[string]func(t *testing.T) target {
	return map[string]func(t *testing.T) target{
		"server":  func(t *testing.T) target { return startRedis(t) },
		"cluster": func(t *testing.T) target { return startCluster(t) },
	}
}

// needRedis skips the test when redis-server is not installed (and fails
// it under CI, where .ci/run installs it).
func needRedis(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed (apt-get install redis-server); CI needs it")
		}
		t.Skip("redis-server is not installed: apt-get install redis-server")
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedis starts redis-server.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	needRedis(t)
	r := &redisServer{t: t, port: freePort(t)}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", append([]string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no"}, r.extra...)...)
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
func (r *redisServer) open(t *testing.T, cfg Config) *Store { return openOn(t, r, cfg) }

// openOn returns a Store on tg with keys of its own.
func openOn(t *testing.T, tg target, cfg Config) *Store {
	t.Helper()
	cfg.URL = tg.url()
	if cfg.Prefix == "" {
		cfg.Prefix = "t" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	s, err := Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
