package abrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/recbid/dspd/comparison"
)

// Processes is the Launcher of real runs: each server a process pinned
// with taskset (comparison.StartPinned), ready once its check passes.
type Processes struct {
	ReadyTimeout time.Duration // how long the check may take to pass
}

// pollEvery is how often a server not yet ready is checked again.
const pollEvery = 100 * time.Millisecond

// Launch starts s and waits until it is ready, then keeps its capture.
func (l Processes) Launch(ctx context.Context, s ServerSpec) (Proc, error) {
	p, err := comparison.StartPinned(s.Name, s.CPUs, s.Argv, s.Env, s.LogPath)
	if err != nil {
		return nil, err
	}
	if err := waitReady(ctx, s.Ready, l.ReadyTimeout, p.Done()); err != nil {
		_ = p.Stop()
		return nil, fmt.Errorf("%w; its output:\n%s", err, tail(s.LogPath, 20))
	}
	if s.Capture != nil {
		if err := capture(ctx, *s.Capture); err != nil {
			_ = p.Stop()
			return nil, err
		}
	}
	return p, nil
}

var readyClient = &http.Client{Timeout: 2 * time.Second}

// ready checks once whether r passes.
func ready(ctx context.Context, r Ready) error {
	if r.TCP != "" {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", r.TCP)
		if err != nil {
			return err
		}
		return c.Close()
	}
	method, body := http.MethodGet, ""
	if r.Post != "" {
		method, body = http.MethodPost, r.Post
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, strings.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := readyClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s", method, r.URL, resp.Status)
	}
	return nil
}

// waitReady checks r until it passes, the process exits (exited closes)
// or timeout passes.
func waitReady(ctx context.Context, r Ready, timeout time.Duration, exited <-chan struct{}) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		err := ready(ctx, r)
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("exited before it was ready")
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("not ready within %s: %w", timeout, err)
		case <-tick.C:
		}
	}
}

// capture POSTs c's body to its URL and keeps the answer in c.To.
func capture(ctx context.Context, c Capture) error {
	body, err := os.ReadFile(c.Body)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if c.Type != "" {
		req.Header.Set("Content-Type", c.Type)
	}
	resp, err := readyClient.Do(req)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	defer resp.Body.Close()
	var answer bytes.Buffer
	if _, err := answer.ReadFrom(resp.Body); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("capture: POST %s: %s", c.URL, resp.Status)
	}
	if err := os.WriteFile(c.To, answer.Bytes(), 0o644); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return nil
}

// tail is the last n lines of a file, for errors.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
