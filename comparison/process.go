package comparison

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/recbid/dspd/internal/clock"
)

// server is one contender: a process pinned to the server CPU.
type server struct {
	Name    string // go, go-nopgo, java
	Label   string // for tables and charts
	addr    string
	cmd     *exec.Cmd
	exited  chan error
	startup time.Duration // from process start to its first bid
}

// start launches argv pinned to cpu and waits for its first bid on
// post.data, timing it.
func start(ctx context.Context, name, label, addr string, argv, env []string, cpu int, post []byte, logDir string) (*server, error) {
	logFile, err := os.Create(filepath.Join(logDir, name+".log"))
	if err != nil {
		return nil, err
	}
	args := append([]string{"-c", strconv.Itoa(cpu)}, argv...)
	cmd := exec.Command("taskset", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	s := &server{Name: name, Label: label, addr: addr, cmd: cmd, exited: make(chan error, 1)}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { s.exited <- cmd.Wait(); logFile.Close() }()

	deadline := time.Now().Add(3 * time.Minute) // the first Java start compiles the baseline
	for {
		if ok, _ := s.bidOnce(ctx, post); ok {
			s.startup = time.Since(began)
			return s, nil
		}
		select {
		case err := <-s.exited:
			return nil, fmt.Errorf("%s exited before its first bid (%v); see %s", name, err, logFile.Name())
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s gave no bid within 3 minutes; see %s", name, logFile.Name())
		}
	}
}

var quickClient = &http.Client{Timeout: 2 * time.Second}

func (s *server) url() string { return "http://" + s.addr + "/dsp/recbid" }

func (s *server) bidOnce(ctx context.Context, body []byte) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url(), bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := quickClient.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

// stop sends SIGTERM and waits up to 20 s, then kills.
func (s *server) stop() error {
	if s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		return err
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		return errors.New(s.Name + " did not stop within 20 s of SIGTERM")
	}
}

// clockTicks is the kernel's USER_HZ, the unit of CPU times in /proc.
var clockTicks = func() int64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if n, perr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && perr == nil && n > 0 {
		return n
	}
	return 100
}()

// cpuTime returns the user plus system CPU time of the process, all its
// threads, from /proc/PID/stat.
func (s *server) cpuTime() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is the state, field 3 of stat
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return clock.Milliseconds((utime + stime) * 1000 / clockTicks), nil
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes.
func (s *server) peakRSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}
