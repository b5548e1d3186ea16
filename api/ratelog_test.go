package api

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRateLogKeepsOneLineASecond(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(1_800_000_000, 0)
	l := rateLog{log: slog.New(slog.NewTextHandler(&b, nil)), now: func() time.Time { return now }}
	for range 1000 {
		l.error("store down")
	}
	assert.Equal(t, 1, strings.Count(b.String(), "store down"), "one line in a second")
	assert.Equal(t, int64(999), l.dropped.Load(), "the rest are counted, to be reported with the next line")
	now = now.Add(999 * time.Millisecond)
	l.error("store down")
	assert.Equal(t, 1, strings.Count(b.String(), "store down"), "still the same second")
	now = now.Add(time.Millisecond)
	l.error("store down")
	assert.Equal(t, 2, strings.Count(b.String(), "store down"), "the next second")
	assert.Contains(t, b.String(), "suppressed_since_last=1000")
	assert.Zero(t, l.dropped.Load())
}
