package loadtest

import (
	"context"
	"fmt"
	"time"
)

// progress prints ab's "Completed N requests" lines (every tenth of a
// counted run) or, for a timed run, one line a second, until ctx is done.
// The returned channel closes when it has stopped.
func (r *run) progress(ctx context.Context) <-chan struct{} {
	stopped := make(chan struct{})
	w := r.cfg.Progress
	if w == nil {
		close(stopped)
		return stopped
	}
	step := int64(0)
	if r.cfg.Requests > 0 && r.cfg.stopAt() == 0 {
		step = max(100, r.cfg.Requests/10) // as ab: tenths, at least 100
		if r.cfg.Requests <= 150 {
			step = 0
		}
	}
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		start, next, lastLine := time.Now(), step, time.Now()
		for {
			select {
			case <-ctx.Done():
				n := r.done.Load()
				for step > 0 && next <= n && next <= r.cfg.Requests {
					fmt.Fprintf(w, "Completed %d requests\n", next)
					next += step
				}
				fmt.Fprintf(w, "Finished %d requests\n", n)
				return
			case now := <-tick.C:
				n := r.done.Load()
				if step > 0 {
					for next <= n && next <= r.cfg.Requests {
						fmt.Fprintf(w, "Completed %d requests\n", next)
						next += step
					}
				} else if now.Sub(lastLine) >= time.Second {
					lastLine = now
					fmt.Fprintf(w, "Completed %d requests (%.0f s, %.0f req/s)\n", n,
						now.Sub(start).Seconds(), float64(n)/now.Sub(start).Seconds())
				}
			}
		}
	}()
	return stopped
}
