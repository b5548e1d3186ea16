package disk

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

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

// TestOutboxHandsOverOnlyDurableRecords: a record committed while its WAL
// sync is still under way is visible in Pebble before it is durable; the
// outbox must not hand it to the event log until it is, or a crash would
// leave a record of a win the restart never saw (and the exchange's retry
// would book the win and write its record a second time). The WAL's syncs
// are held at a gate; the outbox's reader must reach its own sync before
// it hands the record over, and what it hands over survives a crash.
func TestOutboxHandsOverOnlyDurableRecords(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewCrashableMem()
	var gate syncGate
	s := open(t, Config{Dir: "/state", FS: errorfs.Wrap(mem, errorfs.InjectorFunc(gate.maybeHold)), Clock: func() time.Time { return testNow }})
	defer s.abandon()
	atBarrier := make(chan struct{})
	s.syncHook = func() { close(atBarrier) }
	id := bidder.BidID{7, 7, 7}

	gate.close()
	claimed := make(chan error, 1)
	go func() {
		_, err := s.Bids().(bidder.EventClaimer).ClaimEvent(ctx, bidder.EventWin, id, testNow.Add(time.Hour), []byte(`{"type":"win"}`+"\n"))
		claimed <- err
	}()
	<-gate.held // the claim's batch is applied, its WAL sync held

	type handed struct {
		durable bool
		crash   *vfs.MemFS
	}
	got := make(chan handed, 1)
	read := make(chan error, 1)
	go func() {
		read <- s.Bids().(bidder.EventOutbox).PendingEvents(10, func(bidder.OutboxID, []byte) {
			got <- handed{durable: gate.isOpen(), crash: mem.CrashClone(vfs.CrashCloneCfg{})}
		})
	}()
	select {
	case <-atBarrier: // the reader waits for durability first: let the syncs go
		gate.open()
	case h := <-got:
		gate.open()
		require.True(t, h.durable, "the outbox handed over a record whose commit was not synced yet")
	}
	require.NoError(t, <-claimed)
	require.NoError(t, <-read)
	h := <-got
	require.True(t, h.durable)

	// What was handed over survives a crash at that moment.
	again := open(t, Config{Dir: "/state", FS: h.crash, Clock: func() time.Time { return testNow }})
	defer again.Close()
	assert.Len(t, pending(t, again.Bids().(bidder.EventOutbox)), 1, "the record handed over is durable")
}

// syncGate holds the WAL's syncs while closed.
type syncGate struct {
	mu     sync.Mutex
	closed chan struct{} // nil: open
	held   chan struct{} // signalled when a sync is held
}

func (g *syncGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed, g.held = make(chan struct{}), make(chan struct{}, 1)
}

func (g *syncGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed != nil {
		close(g.closed)
		g.closed = nil
	}
}

func (g *syncGate) isOpen() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed == nil
}

func (g *syncGate) maybeHold(op errorfs.Op) error {
	if !strings.HasSuffix(op.Path, ".log") {
		return nil
	}
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
	default:
		return nil
	}
	g.mu.Lock()
	closed, held := g.closed, g.held
	g.mu.Unlock()
	if closed == nil {
		return nil
	}
	select {
	case held <- struct{}{}:
	default:
	}
	<-closed
	return nil
}
