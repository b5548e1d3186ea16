package redis

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/recbid/dspd/bidder"
)

// TestBidCountsInFlight: counts taken by a flush still count as pending
// until the flush has written them, so a replica's stats never miss them.
func TestBidCountsInFlight(t *testing.T) {
	var b bidCounts
	b.init()
	day := bidder.Day(20000)
	b.add("c1", "x1", "", day, 1)
	b.add("c1", "x2", "d1", day, 1)
	b.add("c2", "x1", "", day, 1)
	batch := b.take()
	assert.Len(t, batch, 3)
	b.add("c1", "x1", "", day, 1)
	for _, tc := range []struct {
		label string
		want  int64
	}{{"", 3}, {"x1", 2}, {"x2", 1}, {bidder.DealLabel("d1"), 1}, {"x3", 0}} {
		assert.Equal(t, tc.want, b.pending("c1", tc.label, day), "label %q while in flight", tc.label)
	}
	b.written()
	assert.Equal(t, int64(1), b.pending("c1", "", day), "after the write only the later bid is pending")
	assert.Nil(t, b.inflight)
}
