package comparison

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/recbid/dspd/internal/clock"
)

// Process is a command pinned to a set of CPUs with taskset, its standard
// output and error written to a log file: how the comparison starts its
// servers, and how package abrate starts the servers it measures.
type Process struct {
	Name    string // for messages
	LogPath string // where its output goes
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, once done is closed
}

// stopTimeout is how long Stop waits after SIGTERM before it kills.
const stopTimeout = 20 * time.Second

// StartPinned starts argv pinned to cpus (a taskset list: "0", "0,1"),
// with env added to this process's environment, its output going to
// logPath (created, or truncated).
func StartPinned(name, cpus string, argv, env []string, logPath string) (*Process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("start %s: no command", name)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd := exec.Command("taskset", append([]string{"-c", cpus}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the process's exit status, once Done is closed.
func (p *Process) Err() error { return p.err }

// Args is the command line the process was started with, taskset first.
func (p *Process) Args() []string { return p.cmd.Args }

// PID is the process's id (taskset execs the command in place).
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Status reads one "Name: value" field of the process's /proc/PID/status.
func (p *Process) Status(field string) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.PID()))
	if err != nil {
		return "", err
	}
	return statusField(string(b), field)
}

func statusField(status, field string) (string, error) {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("no %s in /proc status", field)
}

// StatusBytes reads a "NNN kB" field of /proc/PID/status (VmRSS, VmHWM)
// in bytes.
func (p *Process) StatusBytes(field string) (int64, error) {
	v, err := p.Status(field)
	if err != nil {
		return 0, err
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
	return kb * 1024, err
}

// Stop sends SIGTERM and waits up to stopTimeout (20 s), then kills; it
// returns the exit status (at once when the process has already exited).
func (p *Process) Stop() error {
	select {
	case <-p.done:
		return p.err
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within %s of SIGTERM", p.Name, stopTimeout)
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

// CPUTime returns the user plus system CPU time of the process, all its
// threads, from /proc/PID/stat.
func (p *Process) CPUTime() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.PID()))
	if err != nil {
		return 0, fmt.Errorf("CPU time of %s: %w", p.Name, err)
	}
	return parseStatCPU(b)
}

// parseStatCPU reads utime and stime from the text of /proc/PID/stat.
func parseStatCPU(b []byte) (time.Duration, error) {
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
		return 0, fmt.Errorf("/proc stat: %w", err)
	}
	return clock.Milliseconds((utime + stime) * 1000 / clockTicks), nil
}
