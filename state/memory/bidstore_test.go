package memory

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

func TestBidStoreClaim(t *testing.T) {
	ctx := context.Background()
	s := newBidStore(time.Minute, 100)
	rec := bidder.BidRecord{CampaignID: "c1", CreativeID: "cr", User: testHashKey.User("u"), TimeS: 1_793_779_200,
		Price: 2_500_000, PeriodS: 3600}
	id, err := s.Save(ctx, rec, testNow)
	require.NoError(t, err)
	rec.ID = id
	forged := id
	forged[15] ^= 1 // the right place, another secret
	elsewhere := id
	elsewhere[3] ^= 1 // another slot, the same secret

	tests := []struct {
		name  string
		id    bidder.BidID
		price bidder.Micros
		at    time.Time
		want  bidder.ClaimResult
		err   error
	}{
		{"unknown", bidder.BidID{2}, 1, testNow, 0, bidder.ErrUnknownBid},
		{"forged secret", forged, 1, testNow, 0, bidder.ErrUnknownBid},
		{"the secret in another slot", elsewhere, 1, testNow, 0, bidder.ErrUnknownBid},
		{"price above the bid", id, 2_500_001, testNow, 0, bidder.ErrPriceAboveBid},
		{"expired", id, 1, testNow.Add(time.Minute), 0, bidder.ErrUnknownBid},
		{"first claim", id, 2_500_000, testNow.Add(time.Minute - time.Millisecond), bidder.Claimed, nil},
		{"price checked before duplicate", id, 9_000_000, testNow, 0, bidder.ErrPriceAboveBid},
		{"duplicate", id, 1, testNow, bidder.Duplicate, nil},
	}
	for _, tt := range tests { // in order: each row sees the state the previous rows left
		got, res, err := s.Claim(ctx, tt.id, tt.price, tt.at)
		if tt.err != nil {
			assert.ErrorIs(t, err, tt.err, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, res, tt.name)
		assert.Equal(t, rec, got, tt.name)
	}
}

// TestBidStoreFailsClosed fills the store with live records: the next
// save is refused (ErrCapacity) and every record held stays claimable; once
// the records expire, saves succeed again.
func TestBidStoreFailsClosed(t *testing.T) {
	ctx := context.Background()
	const capacity = 3 * memShards
	s := newBidStore(time.Minute, capacity)
	var ids []bidder.BidID
	for i := range capacity {
		id, err := s.Save(ctx, bidder.BidRecord{CampaignID: "c", Price: 1, TimeS: int64(i)}, testNow)
		require.NoError(t, err, "record %d of %d", i+1, capacity)
		ids = append(ids, id)
	}
	_, err := s.Save(ctx, bidder.BidRecord{CampaignID: "c", Price: 1}, testNow.Add(59*time.Second))
	require.ErrorIs(t, err, bidder.ErrCapacity, "full of live records: refused, nothing evicted")
	assert.Equal(t, capacity, s.Len())
	for i, id := range ids {
		rec, res, err := s.Claim(ctx, id, 1, testNow.Add(59*time.Second))
		require.NoError(t, err, "record %d", i)
		assert.Equal(t, bidder.Claimed, res)
		assert.Equal(t, int64(i), rec.TimeS)
	}
	assert.Equal(t, bidder.Upkeep{Refused: 1}, s.Upkeep())

	_, err = s.Save(ctx, bidder.BidRecord{CampaignID: "c", Price: 1}, testNow.Add(time.Minute))
	require.NoError(t, err, "expired records make room")
	assert.Positive(t, s.Upkeep().Expired)
}

// TestBidStoreFillsEveryShard: the store refuses a record only when it
// holds MaxBids, however the ids fall into shards.
func TestBidStoreFillsEveryShard(t *testing.T) {
	for _, capacity := range []int{1, 2, 5, 64, 100, 1000} {
		s := NewBidStore(BidStoreConfig{TTL: time.Minute, MaxBids: capacity}) // random ids
		for i := range capacity {
			_, err := s.Save(context.Background(), bidder.BidRecord{CampaignID: "c"}, testNow)
			require.NoError(t, err, "cap %d: record %d", capacity, i+1)
		}
		_, err := s.Save(context.Background(), bidder.BidRecord{CampaignID: "c"}, testNow)
		assert.ErrorIs(t, err, bidder.ErrCapacity, "cap %d", capacity)
		assert.Equal(t, capacity, s.Len())
	}
}

// TestBidStoreStaleIDs: a slot reused by a new record does not answer
// to the id of the record that held it before.
func TestBidStoreStaleIDs(t *testing.T) {
	ctx := context.Background()
	s := newBidStore(time.Minute, 1)
	old, err := s.Save(ctx, bidder.BidRecord{CampaignID: "old", Price: 1}, testNow)
	require.NoError(t, err)
	later := testNow.Add(2 * time.Minute)
	fresh, err := s.Save(ctx, bidder.BidRecord{CampaignID: "new", Price: 1}, later)
	require.NoError(t, err)
	oldShard, oldSeq := place(old)
	freshShard, freshSeq := place(fresh)
	size := s.shards[oldShard].size
	assert.Equal(t, [2]uint64{uint64(oldShard), oldSeq % size}, [2]uint64{uint64(freshShard), freshSeq % size}, "the same slot")
	_, _, err = s.Claim(ctx, old, 1, later)
	assert.ErrorIs(t, err, bidder.ErrUnknownBid)
	rec, _, err := s.Claim(ctx, fresh, 1, later)
	require.NoError(t, err)
	assert.Equal(t, "new", rec.CampaignID)
}

// TestBidRecordSize: a record is 48 bytes and there is no index, so a full
// store takes 48 bytes a record, measured on the heap.
func TestBidRecordSize(t *testing.T) {
	assert.Equal(t, uintptr(BidRecordBytes), unsafe.Sizeof(ringRecord{}))
	assert.LessOrEqual(t, BidRecordBytes, 64)
	const n = memShards * chunkSize // one whole chunk per shard
	before := liveHeap()
	s := newBidStore(time.Hour, n)
	for i := range n {
		_, err := s.Save(context.Background(), bidder.BidRecord{CampaignID: "c", CreativeID: "cr", User: bidder.UserKey{1},
			TimeS: int64(i), Price: 1}, testNow)
		require.NoError(t, err)
	}
	perRecord := float64(liveHeap()-before) / n
	t.Logf("%d records: %.1f bytes each on the heap", n, perRecord)
	assert.InDelta(t, BidRecordBytes, perRecord, 4)
	runtime.KeepAlive(s)
}

func TestBidStoreSweep(t *testing.T) {
	ctx := context.Background()
	s := newBidStore(time.Minute, 10_000)
	for i := range 9_000 {
		_, err := s.Save(ctx, bidder.BidRecord{CampaignID: "c"}, testNow.Add(time.Duration(i)*time.Millisecond))
		require.NoError(t, err)
	}
	assert.Equal(t, 0, s.Sweep(testNow.Add(time.Minute-time.Second)))
	assert.Equal(t, 9_000, s.Sweep(testNow.Add(2*time.Minute)), "in batches, all of them")
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, int64(9_000), s.Upkeep().Expired)
}

// TestBidStoreRestore: records saved in one store come back in
// another, at the places their ids name (in a ring of another size), with
// their claims, and nothing else answers to them.
func TestBidStoreRestore(t *testing.T) {
	ctx := context.Background()
	from := newBidStore(time.Minute, memShards*10)
	var saved []bidder.BidRecord
	for i := range 300 {
		rec := bidder.BidRecord{CampaignID: fmt.Sprint("c", i%3), CreativeID: "cr", Exchange: "adx", Pricing: "clear",
			User: bidder.UserKey{byte(i)}, TimeS: int64(i), Price: 100, PeriodS: 60, Test: i%7 == 0}
		id, err := from.Save(ctx, rec, testNow)
		require.NoError(t, err)
		rec.ID = id
		saved = append(saved, rec)
	}
	for _, rec := range saved[:100] {
		_, _, err := from.Claim(ctx, rec.ID, 1, testNow)
		require.NoError(t, err)
	}

	to := newBidStore(time.Minute, memShards*7) // another size: other slots
	for i, rec := range saved {
		require.NoError(t, to.Restore(rec, testNow.Add(time.Minute), i < 100))
	}
	assert.Equal(t, len(saved), to.Len())
	for i, rec := range saved {
		got, res, err := to.Claim(ctx, rec.ID, 1, testNow)
		require.NoError(t, err, "record %d", i)
		assert.Equal(t, rec, got)
		assert.Equal(t, map[bool]bidder.ClaimResult{true: bidder.Duplicate, false: bidder.Claimed}[i < 100], res, "record %d", i)
	}
	id, err := to.Save(ctx, bidder.BidRecord{CampaignID: "new"}, testNow)
	require.NoError(t, err, "saves go on after the restored records")
	_, err = to.Peek(ctx, id, testNow)
	require.NoError(t, err)

	small := newBidStore(time.Minute, memShards) // one slot a shard: 300 records do not fit
	var fitErr error
	for _, rec := range saved {
		if fitErr = small.Restore(rec, testNow.Add(time.Minute), false); fitErr != nil {
			break
		}
	}
	assert.ErrorIs(t, fitErr, bidder.ErrCapacity)
}

func BenchmarkBidStoreSave(b *testing.B) {
	s := NewBidStore(BidStoreConfig{})
	ctx := context.Background()
	rec := bidder.BidRecord{CampaignID: "c-0001", CreativeID: "cr-0001-a", Price: 2_500_000}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Save(ctx, rec, testNow); err != nil {
			b.Fatal(err)
		}
	}
}
