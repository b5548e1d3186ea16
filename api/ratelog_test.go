package api

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRateLogKeepsOneLineASecond(t *testing.T) {
	var b bytes.Buffer
	l := rateLog{log: slog.New(slog.NewTextHandler(&b, nil))}
	l.last.Store(0)
	for range 1000 {
		l.error("store down")
	}
	lines := strings.Count(b.String(), "store down")
	assert.GreaterOrEqual(t, lines, 1)
	assert.LessOrEqual(t, lines, 2, "at most one line a second (the loop may straddle a second)")
	assert.Positive(t, l.dropped.Load(), "the rest are counted, to be reported with the next line")
}
