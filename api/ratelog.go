package api

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// rateLog logs at most one line a second, saying how many like it were
// left out, so that a failing state store or a stream of malformed requests
// cannot flood the logs with one line per request.
type rateLog struct {
	log     *slog.Logger
	now     func() time.Time // default time.Now
	last    atomic.Int64     // Unix seconds of the last line
	dropped atomic.Int64
}

// allow reports whether a line may be written now and, when it may, how
// many were left out since the last one; a caller that is refused is
// counted among those.
func (l *rateLog) allow() (ok bool, suppressed int64) {
	now := time.Now
	if l.now != nil {
		now = l.now
	}
	sec := now().Unix()
	last := l.last.Load()
	if sec == last || !l.last.CompareAndSwap(last, sec) {
		l.dropped.Add(1)
		return false, 0
	}
	return true, l.dropped.Swap(0)
}

func (l *rateLog) error(msg string, args ...any) {
	ok, n := l.allow()
	if !ok {
		return
	}
	if n > 0 {
		args = append(args, "suppressed_since_last", n)
	}
	l.log.Error(msg, args...)
}
