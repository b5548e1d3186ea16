package disk

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// TestStartupAtScale (make soak): a directory with 4,000,000 live bid
// records and 1,000,000 frequency counters opens, with all of them read
// back into memory; the time it takes is logged. With DSPD_STARTUP_DIR set,
// the directory is left there, for the soak to start dspd on it (with
// -clock-start at testNow) and time its /readyz.
func TestStartupAtScale(t *testing.T) {
	if os.Getenv("DSPD_SOAK") == "" {
		t.Skip("make soak runs it (DSPD_SOAK=1)")
	}
	const records, counters = 4_000_000, 1_000_000
	dir := os.Getenv("DSPD_STARTUP_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.RemoveAll(dir))
	clock := func() time.Time { return testNow }
	s := open(t, Config{Dir: dir, Clock: clock})
	began := time.Now()
	fill(t, s, records, counters)
	require.NoError(t, s.Close())
	t.Logf("wrote %d bid records and %d frequency counters in %v", records, counters, time.Since(began).Round(time.Millisecond))

	began = time.Now()
	again := open(t, Config{Dir: dir, Clock: clock})
	took := time.Since(began)
	defer again.Close()
	assert.Equal(t, records, again.Bids().Len())
	_, freq := again.mem.ledger.Sizes()
	assert.Equal(t, counters, freq)
	t.Logf("opened with %d bid records and %d frequency counters in %v", records, counters, took.Round(time.Millisecond))
}

// fill writes records bid records (a quarter of them won, half with a
// user) and counters frequency counters, live at testNow, as the store
// writes them, in large batches, then compacts them as Pebble does in the
// background of a database in use.
func fill(t *testing.T, s *Store, records, counters int) {
	r := rand.New(rand.NewPCG(1, 2))
	now := testNow.Unix()
	batch := s.db.NewBatch()
	commit := func(force bool) {
		if force || batch.Len() > 4<<20 {
			require.NoError(t, batch.Commit(pebble.NoSync))
			batch = s.db.NewBatch()
		}
	}
	for i := range records {
		id := testBidID(i%64, uint64(i/64), r)
		c := r.IntN(1000)
		rec := bidder.BidRecord{ID: id, CampaignID: fmt.Sprintf("c-%04d", c), Exchange: "default",
			Price: bidder.Micros(1_000_000 + 9_000*c), TimeS: now - int64(r.IntN(300)), PeriodS: 3600} // a campaign bids its price
		rec.CreativeID = "cr-" + rec.CampaignID[2:] + "-a"
		if i%2 == 0 {
			rec.User = bidder.UserKey{byte(i), byte(i >> 8), byte(i >> 16), 1}
		}
		expires := rec.TimeS + 600
		_ = batch.Set(bidKey(kindBid, expires, id), encodeRecord(rec, expires), nil)
		if i%4 == 0 {
			_ = batch.Set(bidKey(kindClaim, expires, id), nil, nil)
		}
		commit(false)
	}
	for i := range counters {
		user := bidder.UserKey{byte(i), byte(i >> 8), byte(i >> 16), 2}
		_ = batch.Merge(freqKey(now+int64(r.IntN(3600))+60, user, 3600, now/3600, fmt.Sprintf("c-%04d", i%1000)), sums(1), nil)
		commit(false)
	}
	for c := range 1000 {
		s.addDay(batch, fmt.Sprintf("c-%04d", c), "default", "", bidder.DayOfTime(testNow), 4000, 1000, 5_000_000_000)
	}
	commit(true)
	// As a database that has run for a while is: flushed and compacted.
	require.NoError(t, s.db.Flush())
	require.NoError(t, s.db.Compact(context.Background(), []byte{0}, []byte{0xff}, true))
}

// testBidID is the id the memory store gives the record seq of a shard:
// the shard's 6 bits and the sequence number's 42 in the first 6 bytes,
// then 80 secret bits (never all zero).
func testBidID(shard int, seq uint64, r *rand.Rand) bidder.BidID {
	var id bidder.BidID
	var p [8]byte
	binary.BigEndian.PutUint64(p[:], uint64(shard)<<42|seq)
	copy(id[:6], p[2:])
	binary.BigEndian.PutUint64(id[6:14], r.Uint64()|1)
	binary.BigEndian.PutUint16(id[14:], uint16(r.Uint32()))
	return id
}
