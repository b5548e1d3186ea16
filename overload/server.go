package overload

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a dspd child process.
type server struct {
	cmd   *exec.Cmd
	admin string // host:port
	done  chan error
}

// start runs dspd with front end fe pinned to cfg.ServerCPU, on the memory
// state (the books are not what is measured), and waits until it is ready.
// Bid records are kept 5 s in a store of 400,000: the store's ring takes
// its memory as records first reach it, up to -max-bids × 48 bytes, and
// this fills it within the capacity run, so that the memory measured
// after it is the overload's, not the store's filling (at the default
// 30,000,000 it would grow for a quarter of an hour).
func start(ctx context.Context, cfg *Config, fe string) (*server, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", cfg.Port)
	admin := fmt.Sprintf("127.0.0.1:%d", cfg.Port+1)
	cmd := exec.CommandContext(ctx, "taskset", "-c", cfg.ServerCPU, cfg.Dspd,
		"-http", fe, "-addr", addr, "-admin", admin, "-state", "memory", "-bid-ttl", "5s", "-max-bids", "400000",
		"-log-level", "warn", "-clock-start", "2026-11-04T08:00:00Z")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start dspd: %w", err)
	}
	s := &server{cmd: cmd, admin: admin, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("dspd exited before it was ready: %v", err)
		default:
		}
		if resp, err := http.Get("http://" + admin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(50 * time.Millisecond) // polling a child's readiness
	}
	s.stop()
	return nil, fmt.Errorf("dspd -http %s was not ready within 30s", fe)
}

// stop ends the child (SIGTERM, then its drain).
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// rss returns the child's resident memory in bytes (VmRSS).
func (s *server) rss() (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", s.cmd.Process.Pid)
}

// counter returns the value of one series of the child's /metrics.
func (s *server) counter(series string) (float64, error) {
	resp, err := http.Get("http://" + s.admin + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("no %s in dspd's metrics", series)
}
