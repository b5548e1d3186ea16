package overload

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recbid/dspd/comparison"
)

// server is a dspd child process.
type server struct {
	*comparison.Process
	admin string // host:port
}

// start runs dspd with front end fe pinned to cfg.ServerCPU, on the memory
// state (the books are not what is measured), its output in logDir, and
// waits until it is ready. Bid records are kept 5 s in a store of
// 400,000: the store's ring takes its memory as records first reach it,
// up to -max-bids × 48 bytes, and this fills it within the capacity run,
// so that the memory measured after it is the overload's, not the store's
// filling (at the default 30,000,000 it would grow for a quarter of an
// hour).
func start(ctx context.Context, cfg *Config, fe, logDir string) (*server, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", cfg.Port)
	admin := fmt.Sprintf("127.0.0.1:%d", cfg.Port+1)
	logPath := filepath.Join(logDir, "dspd-"+fe+".log")
	p, err := comparison.StartPinned("dspd -http "+fe, cfg.ServerCPU, []string{cfg.Dspd,
		"-http", fe, "-addr", addr, "-admin", admin, "-state", "memory", "-bid-ttl", "5s", "-max-bids", "400000",
		"-log-level", "warn", "-clock-start", "2026-11-04T08:00:00Z"}, nil, logPath)
	if err != nil {
		return nil, err
	}
	s := &server{Process: p, admin: admin}
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		if resp, err := http.Get("http://" + admin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-p.Done():
			return nil, fmt.Errorf("%s exited before it was ready (%v); see %s", p.Name, p.Err(), logPath)
		case <-ctx.Done():
			_ = p.Stop()
			return nil, ctx.Err()
		case <-deadline.C:
			_ = p.Stop()
			return nil, fmt.Errorf("%s was not ready within 30s; see %s", p.Name, logPath)
		case <-time.After(50 * time.Millisecond): // polling a child's readiness
		}
	}
}

// rss returns the child's resident memory in bytes.
func (s *server) rss() (int64, error) { return s.StatusBytes("VmRSS") }

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
