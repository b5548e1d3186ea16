package disk

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/statetest"
)

func TestEventClaimsConformance(t *testing.T) {
	statetest.EventClaims(t, testNow, func(t *testing.T) bidder.EventClaimer {
		s := open(t, Config{Dir: t.TempDir(), Clock: func() time.Time { return testNow }})
		t.Cleanup(func() { _ = s.Close() })
		return s.Bids().(bidder.EventClaimer)
	})
}

// pending lists the outbox's records by id.
func pending(t *testing.T, o bidder.EventOutbox) map[bidder.OutboxID]string {
	t.Helper()
	out := map[bidder.OutboxID]string{}
	require.NoError(t, o.PendingEvents(1000, func(id bidder.OutboxID, line []byte) { out[id] = string(line) }))
	return out
}

// TestOutboxSurvivesARestart: a claim's record waits in the outbox, through
// a restart, until the event log acknowledges it; the claim stays claimed.
func TestOutboxSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := func() time.Time { return testNow }
	until := testNow.Add(24 * time.Hour)
	id := bidder.BidID{9, 9, 9}
	s := open(t, Config{Dir: dir, Clock: clock})
	c := s.Bids().(bidder.EventClaimer)
	ok, err := c.ClaimEvent(ctx, 1, id, until, []byte(`{"type":"impression"}`+"\n"))
	require.NoError(t, err)
	require.True(t, ok)
	select {
	case <-s.Bids().(bidder.EventOutbox).EventsWaiting():
	default:
		t.Fatal("the outbox was not signalled")
	}
	ok, err = c.ClaimEvent(ctx, 1, id, until, []byte(`{"type":"impression","again":1}`+"\n"))
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, s.Close())

	s = open(t, Config{Dir: dir, Clock: clock})
	defer s.Close()
	o := s.Bids().(bidder.EventOutbox)
	want := bidder.OutboxID{Event: 1, Bid: id}
	assert.Equal(t, map[bidder.OutboxID]string{want: `{"type":"impression"}` + "\n"}, pending(t, o), "the first claim's record only")
	ok, err = s.Bids().(bidder.EventClaimer).ClaimEvent(ctx, 1, id, until, nil)
	require.NoError(t, err)
	assert.False(t, ok, "claimed before the restart: still claimed")
	require.NoError(t, o.AckEvents([]bidder.OutboxID{want}))
	assert.Empty(t, pending(t, o))
}

// TestWinRecordInTheOutbox: a win's event record is committed with the
// win, once: a repeated notice leaves no second record.
func TestWinRecordInTheOutbox(t *testing.T) {
	ctx := context.Background()
	clock := func() time.Time { return testNow }
	s := open(t, Config{Dir: t.TempDir(), Clock: clock})
	defer s.Close()
	e := bidder.NewEngine(bidder.Config{Clock: clock}, s.Ledger(), s.Bids())
	rec := bidder.BidRecord{CampaignID: "c-1", CreativeID: "cr-1", Exchange: "default", TimeS: testNow.Unix(), Price: 2_000_000}
	id, err := s.Bids().Save(ctx, rec, testNow)
	require.NoError(t, err)
	rec.ID = id
	out, err := e.WinLogged(ctx, rec, 1_000_000, []byte("win record\n"))
	require.NoError(t, err)
	assert.True(t, out.EventKept)
	out, err = e.WinLogged(ctx, rec, 1_000_000, []byte("second\n"))
	require.NoError(t, err)
	assert.True(t, out.Duplicate)
	assert.False(t, out.EventKept)
	assert.Equal(t, map[bidder.OutboxID]string{{Event: bidder.EventWin, Bid: id}: "win record\n"},
		pending(t, s.Bids().(bidder.EventOutbox)))
}

// TestEventClaimsExpire: a claim's window over, the sweep deletes it.
func TestEventClaimsExpire(t *testing.T) {
	ctx := context.Background()
	now := testNow
	s := open(t, Config{Dir: t.TempDir(), Clock: func() time.Time { return now }})
	defer s.Close()
	c := s.Bids().(bidder.EventClaimer)
	until := testNow.Add(time.Hour)
	_, err := c.ClaimEvent(ctx, 1, bidder.BidID{1}, until, nil)
	require.NoError(t, err)
	s.Bids().(interface{ Sweep(time.Time) int }).Sweep(testNow.Add(2 * time.Hour))
	n := 0
	require.NoError(t, scan(s.db, []byte{kindEvent}, []byte{kindEvent + 1}, func(k, v []byte) error { n++; return nil }))
	assert.Zero(t, n, "deleted with its minute")
}

// TestDealRecordSurvivesARestart: a bid made in a deal is written as a
// record of version 2 (its deal a fifth string) and read back whole; one
// of the open auction is still written as version 1.
func TestDealRecordSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := func() time.Time { return testNow }
	s := open(t, Config{Dir: dir, Clock: clock})
	rec := bidder.BidRecord{CampaignID: "c-1", CreativeID: "cr-1", Exchange: "adx", Deal: "D-7", TimeS: testNow.Unix(), Price: 3_000_000}
	id, err := s.Bids().Save(ctx, rec, testNow)
	require.NoError(t, err)
	auction := rec
	auction.Deal = ""
	auctionID, err := s.Bids().Save(ctx, auction, testNow)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.Equal(t, byte(recordVersion), encodeRecord(auction, 1)[0])
	assert.Equal(t, byte(recordVersionDeal), encodeRecord(rec, 1)[0])

	s = open(t, Config{Dir: dir, Clock: clock})
	defer s.Close()
	got, err := s.Bids().Peek(ctx, id, testNow)
	require.NoError(t, err)
	rec.ID = id
	assert.Equal(t, rec, got)
	got, err = s.Bids().Peek(ctx, auctionID, testNow)
	require.NoError(t, err)
	assert.Empty(t, got.Deal)
}
