package api

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// rateLog logs an error at most once a second, saying how many like it were
// left out, so that a failing state store cannot flood the logs with one
// line per request.
type rateLog struct {
	log     *slog.Logger
	last    atomic.Int64 // Unix seconds of the last line
	dropped atomic.Int64
}

func (l *rateLog) error(msg string, args ...any) {
	now := time.Now().Unix()
	last := l.last.Load()
	if now == last || !l.last.CompareAndSwap(last, now) {
		l.dropped.Add(1)
		return
	}
	if n := l.dropped.Swap(0); n > 0 {
		args = append(args, "suppressed_since_last", n)
	}
	l.log.Error(msg, args...)
}
