package disk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/smallfs"
	"github.com/recbid/dspd/state/statetest"
)

// testNow is the server clock of these tests: 2026-11-04 08:00 UTC.
var testNow = time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func open(t testing.TB, cfg Config) *Store {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	s, err := Open(cfg)
	require.NoError(t, err)
	return s
}

func TestLedgerConformance(t *testing.T) {
	statetest.Ledger(t, func(t *testing.T) bidder.Ledger {
		s := open(t, Config{Dir: t.TempDir()})
		t.Cleanup(func() { _ = s.Close() })
		return s.Ledger()
	})
}

func TestPacingBookConformance(t *testing.T) {
	statetest.PacingBook(t, func(t *testing.T) bidder.Ledger {
		s := open(t, Config{Dir: t.TempDir()})
		t.Cleanup(func() { _ = s.Close() })
		return s.Ledger()
	})
}

// TestPacingBookSurvivesARestart: the request counts and the controller
// states are read back at start.
func TestPacingBookSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := func() time.Time { return testNow }
	today := bidder.DayOfTime(testNow)
	counts := make([]int64, bidder.PaceBuckets)
	counts[7], counts[200] = 3, 11
	pace := bidder.Pace{Tick: testNow.Unix() / 60, Day: today, Rate: 0.37, Spent: 1234, Requests: 99, Share: 0.33, SpendW: 5, ReqW: 6}
	stale := bidder.Pace{Tick: testNow.Unix()/60 - 9*24*60, Day: today - 9, Rate: 0.5}

	s := open(t, Config{Dir: dir, Clock: clock})
	book := s.Ledger().(bidder.PacingBook)
	require.NoError(t, book.AddTraffic(ctx, today-1, counts))
	require.NoError(t, book.AddTraffic(ctx, today-1, counts))
	require.NoError(t, book.AddTraffic(ctx, today-bidder.PaceTrafficDays, counts)) // older than the days kept
	_, err := book.StorePace(ctx, "c1", pace)
	require.NoError(t, err)
	_, err = book.StorePace(ctx, "old", stale)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s = open(t, Config{Dir: dir, Clock: clock})
	defer s.Close()
	book = s.Ledger().(bidder.PacingBook)
	got, err := book.Traffic(ctx, today-1)
	require.NoError(t, err)
	want := make([]int64, bidder.PaceBuckets)
	want[7], want[200] = 6, 22
	assert.Equal(t, want, got)
	got, err = book.Traffic(ctx, today-bidder.PaceTrafficDays)
	require.NoError(t, err)
	assert.Nil(t, got, "a day no longer kept is not read back")
	out := make([]bidder.Pace, 2)
	require.NoError(t, book.Paces(ctx, []string{"c1", "old"}, out))
	assert.Equal(t, []bidder.Pace{pace, {}}, out, "the stale state is not read back")

	s.Ledger().(interface{ Sweep(time.Time) int }).Sweep(testNow)
	assert.Zero(t, keyCount(t, s, trafficKey(today-bidder.PaceTrafficDays)), "old counts deleted")
	assert.Zero(t, keyCount(t, s, paceKey("old")), "the stale state deleted")
	assert.Equal(t, 1, keyCount(t, s, paceKey("c1")))
}

func TestBidStoreConformance(t *testing.T) {
	statetest.BidStore(t, func(t *testing.T, ttl time.Duration) bidder.BidStore {
		s := open(t, Config{Dir: t.TempDir(), BidTTL: ttl})
		t.Cleanup(func() { _ = s.Close() })
		return s.Bids()
	})
}

// campaigns: "capped" (one win a user and hour), "broke" (one bid's worth
// of budget), "free".
func campaigns() *bidder.Catalog {
	return bidder.NewCatalog([]*bidder.Campaign{
		campaign("capped", 3_000_000, func(c *bidder.Campaign) { c.FreqCap = bidder.FreqCap{Impressions: 1, PeriodS: 3600} }),
		campaign("broke", 2_000_000, func(c *bidder.Campaign) { c.DailyBudget = 2000 }),
		campaign("free", 1_000_000, nil),
	})
}

func campaign(id string, bid bidder.Micros, mod func(*bidder.Campaign)) *bidder.Campaign {
	c := &bidder.Campaign{ID: id, Advertiser: "A", ADomain: []string{"a.example"}, Cat: []string{"IAB1"}, Active: true,
		BidCPM: bid, DailyBudget: bidder.NoDailyLimit,
		Creatives: []bidder.Creative{{ID: id + "-cr", W: 300, H: 250, ImageURL: "https://a/i", ClickURL: "https://a/"}}}
	if mod != nil {
		mod(c)
	}
	return c
}

// freeOnly: the one campaign "free", without limits.
func freeOnly() *bidder.Catalog {
	return bidder.NewCatalog([]*bidder.Campaign{campaign("free", 1_000_000, nil)})
}

func request(uid string, w int) bidder.Request {
	return bidder.Request{ID: "r", ImpID: "1", W: w, H: 250, UID: uid, Exchange: "adx", TimeMs: testNow.UnixMilli()}
}

// engineOn returns an engine on the store, wired as dspd wires it.
func engineOn(s *Store) *bidder.Engine {
	return bidder.NewEngine(bidder.Config{Clock: func() time.Time { return testNow }, HashKey: s.HashKey()}, s.Ledger(), s.Bids())
}

// TestBooksSurviveARestart: after a clean restart, a crash (only what was
// synced survives) or both, the spend, wins and bids are what they were,
// won bids stay won (a repeated notice is a duplicate), bids not yet won
// can still be won, a capped user stays capped and a spent budget stays
// spent.
func TestBooksSurviveARestart(t *testing.T) {
	for _, crash := range []bool{false, true} {
		t.Run(map[bool]string{false: "close and reopen", true: "crash"}[crash], func(t *testing.T) {
			ctx := context.Background()
			fs := vfs.NewCrashableMem()
			cfg := Config{Dir: "/state", FS: fs, Clock: func() time.Time { return testNow }}
			s := open(t, cfg)
			e, cat := engineOn(s), campaigns()
			capped := request("user-1", 300)
			d, err := e.Decide(ctx, cat, &capped)
			require.NoError(t, err)
			require.Equal(t, "capped", d.Campaign.ID)
			_, err = e.Win(ctx, d.BidID, 2_500_000)
			require.NoError(t, err)
			require.Equal(t, "broke", decideOK(t, e, cat).Campaign.ID) // the cap moves user-1 to broke
			broke := decideOK(t, e, cat)
			require.Equal(t, "broke", broke.Campaign.ID)
			_, err = e.Win(ctx, broke.BidID, 2_000_000) // its whole budget
			require.NoError(t, err)
			pending := decideOK(t, e, cat) // free: no win yet
			require.Equal(t, "free", pending.Campaign.ID)
			before := allStats(t, s)

			if crash {
				s.abandon()
				cfg.FS = fs.CrashClone(vfs.CrashCloneCfg{}) // only what was synced
			} else {
				require.NoError(t, s.Close())
			}
			again := open(t, cfg)
			defer again.Close()
			assert.Equal(t, s.HashKey(), again.HashKey(), "users stay the same")
			e = engineOn(again)
			assert.Equal(t, before, allStats(t, again))
			out, err := e.Win(ctx, d.BidID, 1_000_000)
			require.NoError(t, err)
			assert.True(t, out.Duplicate, "a won bid stays won")
			out, err = e.Win(ctx, pending.BidID, 500_000)
			require.NoError(t, err, "a bid not yet won can still be won")
			assert.False(t, out.Duplicate)
			d, err = e.Decide(ctx, cat, &capped)
			require.NoError(t, err)
			assert.Equal(t, "free", d.Campaign.ID, "user-1 stays capped and broke stays spent")
		})
	}
}

func decideOK(t *testing.T, e *bidder.Engine, cat *bidder.Catalog) bidder.Decision {
	t.Helper()
	req := request("user-1", 300)
	d, err := e.Decide(context.Background(), cat, &req)
	require.NoError(t, err)
	require.True(t, d.Bid(), d.Reason.String())
	return d
}

func allStats(t *testing.T, s *Store) map[string]bidder.DayStats {
	t.Helper()
	out := map[string]bidder.DayStats{}
	for _, c := range []string{"capped", "broke", "free"} {
		for _, ex := range []string{"", "adx"} {
			st, _, err := s.Ledger().Stats(context.Background(), c, ex, bidder.DayOfTime(testNow))
			require.NoError(t, err)
			out[c+"/"+ex] = st
		}
	}
	return out
}

// TestExpiredEntriesLeaveTheDisk: records and counters past their time
// leave the database at the sweep, and do not come back at a restart.
func TestExpiredEntriesLeaveTheDisk(t *testing.T) {
	ctx := context.Background()
	var now atomic.Int64
	now.Store(testNow.Unix())
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	cfg := Config{Dir: t.TempDir(), BidTTL: time.Minute, Clock: clock}
	s := open(t, cfg)
	e := bidder.NewEngine(bidder.Config{Clock: clock, HashKey: s.HashKey(), BidTTL: time.Minute}, s.Ledger(), s.Bids())
	cat := campaigns()
	for i := range 50 {
		req := request(fmt.Sprint("user-", i), 300)
		req.TimeMs = clock().UnixMilli()
		d, err := e.Decide(ctx, cat, &req)
		require.NoError(t, err)
		_, err = e.Win(ctx, d.BidID, 1)
		require.NoError(t, err)
	}
	assert.Equal(t, 50, count(t, s, kindBid))
	assert.Equal(t, 50, count(t, s, kindClaim))
	assert.Equal(t, 50, count(t, s, kindFreq))
	now.Add(2 * 3600) // past the records' minute and the users' hour
	e.Sweep(clock())
	assert.Zero(t, count(t, s, kindBid))
	assert.Zero(t, count(t, s, kindClaim))
	assert.Zero(t, count(t, s, kindFreq))
	assert.Positive(t, count(t, s, kindDay), "budget counters stay for their days")
	now.Add(9 * 24 * 3600)
	e.Sweep(clock())
	assert.Zero(t, count(t, s, kindDay))
	require.NoError(t, s.Close())
	again := open(t, cfg)
	defer again.Close()
	assert.Zero(t, again.Bids().Len())
}

func count(t *testing.T, s *Store, kind byte) int {
	t.Helper()
	n := 0
	require.NoError(t, scan(s.db, []byte{kind}, []byte{kind + 1}, func(_, _ []byte) error { n++; return nil }))
	return n
}

// keyCount counts the keys equal to key (0 or 1).
func keyCount(t *testing.T, s *Store, key []byte) int {
	t.Helper()
	n := 0
	require.NoError(t, scan(s.db, key, append(key[:len(key):len(key)], 0), func(_, _ []byte) error { n++; return nil }))
	return n
}

// TestOneProcessADirectory: a second store on a held directory is refused,
// naming the holder.
func TestOneProcessADirectory(t *testing.T) {
	dir := t.TempDir()
	s := open(t, Config{Dir: dir})
	defer s.Close()
	_, err := Open(Config{Dir: dir, Logger: quiet()})
	require.ErrorIs(t, err, ErrLocked)
	assert.Contains(t, err.Error(), fmt.Sprintf("is held by process %d", osGetpid()))
}

// injector fails the operations its filter picks while it is on.
type injector struct {
	on     atomic.Bool
	pick   func(errorfs.Op) bool
	err    error
	passed atomic.Int64 // operations picked while on
}

func (f *injector) MaybeError(op errorfs.Op) error {
	if f.on.Load() && f.pick(op) {
		f.passed.Add(1)
		return f.err
	}
	return nil
}

func (f *injector) String() string { return f.err.Error() }

// fullDisk fails the writes a full disk fails, with ENOSPC.
func fullDisk() *injector {
	return &injector{err: fmt.Errorf("injected: %w", syscall.ENOSPC), pick: func(op errorfs.Op) bool {
		switch op.Kind {
		case errorfs.OpCreate, errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFilePreallocate:
			return true
		}
		return false
	}}
}

// TestFullDisk: while the disk is full, a win notice already being
// written waits for room; new bids are not made (state_unavailable) and
// new notices are refused at once, unclaimed, to be retried; once there
// is room, the waiting notice is acknowledged, the store serves again by
// itself, and the retried notice is recorded once.
func TestFullDisk(t *testing.T) {
	ctx := context.Background()
	full := fullDisk()
	mem := vfs.NewCrashableMem()
	cfg := Config{Dir: "/state", FS: errorfs.Wrap(mem, full), RetryEvery: time.Millisecond,
		Clock: func() time.Time { return testNow }}
	s := open(t, cfg)
	e, cat := engineOn(s), freeOnly()
	waiting, refused := decideOK(t, e, cat), decideOK(t, e, cat)

	full.on.Store(true)
	done := make(chan error, 1)
	go func() {
		_, err := e.Win(ctx, waiting.BidID, 1_000_000)
		done <- err
	}()
	require.Eventually(t, s.Unavailable, 10*time.Second, time.Millisecond, "the notice's write finds the disk full")
	assert.Positive(t, s.Failures())
	req := request("", 300)
	d, err := e.Decide(ctx, cat, &req)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Equal(t, bidder.ReasonStateUnavailable.String(), d.Reason.String(), "no bid while the disk is full")
	_, err = e.Win(ctx, refused.BidID, 500_000)
	require.ErrorIs(t, err, ErrUnavailable, "a new notice is refused, to be retried")
	select {
	case err := <-done:
		t.Fatalf("the notice being written returned while the disk was full: %v", err)
	default:
	}

	full.on.Store(false)
	require.NoError(t, <-done, "the waiting notice goes through once there is room")
	assert.False(t, s.Unavailable(), "the store serves again")
	out, err := e.Win(ctx, refused.BidID, 500_000)
	require.NoError(t, err)
	assert.False(t, out.Duplicate, "the retried notice is recorded")
	out, err = e.Win(ctx, refused.BidID, 500_000)
	require.NoError(t, err)
	assert.True(t, out.Duplicate, "once")
	d, err = e.Decide(ctx, cat, &req)
	require.NoError(t, err)
	assert.True(t, d.Bid(), "bidding again")
	want := bidder.DayStats{Bids: 3, Wins: 2, Spend: 1_500_000}
	assert.Equal(t, want, stat(t, s, "free"))

	s.abandon()
	again := open(t, Config{Dir: "/state", FS: mem.CrashClone(vfs.CrashCloneCfg{}), Clock: cfg.Clock})
	defer again.Close()
	assert.Equal(t, want, stat(t, again, "free"), "all of it on disk")
}

// TestFailedFsyncStops: a failed fsync stops the store (Config.Fatal;
// dspd exits) without acknowledging the notice it was writing; after the
// restart the books hold what was acknowledged, and the retried notice is
// recorded once.
func TestFailedFsyncStops(t *testing.T) {
	ctx := context.Background()
	fsync := &injector{err: errors.New("injected: input/output error"), pick: func(op errorfs.Op) bool {
		return op.Kind == errorfs.OpFileSync || op.Kind == errorfs.OpFileSyncData || op.Kind == errorfs.OpFileSyncTo
	}}
	mem := vfs.NewCrashableMem()
	fatal := make(chan string, 1)
	cfg := Config{Dir: "/state", FS: errorfs.Wrap(mem, fsync), Clock: func() time.Time { return testNow },
		Fatal: func(msg string) {
			fatal <- msg
			runtime.Goexit() // what exiting does to the caller: it never returns
		}}
	s := open(t, cfg)
	e, cat := engineOn(s), freeOnly()
	first, second := decideOK(t, e, cat), decideOK(t, e, cat)
	_, err := e.Win(ctx, first.BidID, 1_000_000)
	require.NoError(t, err)

	fsync.on.Store(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.Win(ctx, second.BidID, 500_000)
		t.Error("a notice whose fsync failed was answered")
	}()
	assert.Contains(t, <-fatal, "fatal commit error")
	<-done
	assert.True(t, s.Unavailable())
	req := request("", 300)
	d, err := e.Decide(ctx, cat, &req)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Equal(t, bidder.ReasonStateUnavailable.String(), d.Reason.String())

	s.abandon()
	again := open(t, Config{Dir: "/state", FS: mem.CrashClone(vfs.CrashCloneCfg{}), Clock: cfg.Clock})
	defer again.Close()
	e = engineOn(again)
	assert.Equal(t, bidder.DayStats{Bids: 2, Wins: 1, Spend: 1_000_000}, stat(t, again, "free"), "what was acknowledged")
	out, err := e.Win(ctx, second.BidID, 500_000)
	require.NoError(t, err)
	assert.False(t, out.Duplicate, "the retried notice is recorded")
	assert.Equal(t, bidder.DayStats{Bids: 2, Wins: 2, Spend: 1_500_000}, stat(t, again, "free"))
}

func stat(t *testing.T, s *Store, campaign string) bidder.DayStats {
	t.Helper()
	st, _, err := s.Ledger().Stats(context.Background(), campaign, "", bidder.DayOfTime(testNow))
	require.NoError(t, err)
	return st
}

// TestConcurrentCommitsAreExact: bids and wins from many goroutines, all
// committed durably; a crash clone holds every acknowledged win once.
func TestConcurrentCommitsAreExact(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewCrashableMem()
	cfg := Config{Dir: "/state", FS: fs, Clock: func() time.Time { return testNow }}
	s := open(t, cfg)
	e, cat := engineOn(s), freeOnly()
	var wg sync.WaitGroup
	var spend atomic.Int64
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				req := request("", 300) // free only: no uid for capped, and broke is dearer
				d, err := e.Decide(ctx, cat, &req)
				if !assert.NoError(t, err) || !assert.Equal(t, "free", campaignOf(d)) {
					return
				}
				price := bidder.Micros(1000 + w*100 + i)
				if _, err := e.Win(ctx, d.BidID, price); assert.NoError(t, err) {
					spend.Add(int64(price))
				}
			}
		}()
	}
	wg.Wait()
	s.abandon()
	cfg.FS = fs.CrashClone(vfs.CrashCloneCfg{})
	again := open(t, cfg)
	defer again.Close()
	st, _, err := again.Ledger().Stats(ctx, "free", "", bidder.DayOfTime(testNow))
	require.NoError(t, err)
	assert.Equal(t, bidder.DayStats{Bids: 400, Wins: 400, Spend: bidder.Micros(spend.Load())}, st)
}

func campaignOf(d bidder.Decision) string {
	if d.Campaign == nil {
		return d.Reason.String()
	}
	return d.Campaign.ID
}

// TestReadOnlyDirectory: a directory dspd cannot write is said to be so,
// not to be held by another process. As root (who writes through file
// modes) it is a read-only tmpfs the test mounts.
func TestReadOnlyDirectory(t *testing.T) {
	var dir string
	if os.Geteuid() == 0 {
		dir = smallfs.Mount(t, 1<<20, "ro")
	} else {
		dir = t.TempDir()
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	}
	_, err := Open(Config{Dir: dir, Logger: quiet()})
	require.ErrorIs(t, err, ErrUnwritable)
	assert.NotErrorIs(t, err, ErrLocked)
	assert.Contains(t, err.Error(), "cannot be written")
	assert.NotContains(t, err.Error(), "held by")
}

// TestRemovedDirectoryStops: once the state directory is removed under a
// running store, no win is acknowledged (the one that finds it gone is an
// error, answered 503), bids get no bid, and Fatal ends the process naming
// the cause; with no write at all, the watch finds it within WatchEvery.
func TestRemovedDirectoryStops(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		win  bool // a win notice arrives after the removal
	}{{"found by a win", true}, {"found by the watch", false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fatal := make(chan string, 1)
			every := time.Hour // the win must find it, not the watch
			if !tt.win {
				every = 10 * time.Millisecond
			}
			s := open(t, Config{Dir: dir, Clock: func() time.Time { return testNow }, WatchEvery: every,
				Fatal: func(msg string) { fatal <- msg }})
			e, cat := engineOn(s), freeOnly()
			first, second := decideOK(t, e, cat), decideOK(t, e, cat)
			_, err := e.Win(ctx, first.BidID, 1_000_000)
			require.NoError(t, err)

			require.NoError(t, os.RemoveAll(dir))
			if tt.win {
				_, err = e.Win(ctx, second.BidID, 500_000)
				require.ErrorIs(t, err, ErrUnavailable, "a win into a removed directory is not acknowledged")
				require.ErrorIs(t, err, ErrDirGone)
			}
			select {
			case msg := <-fatal:
				assert.Contains(t, msg, "state directory removed or replaced")
				assert.Contains(t, msg, dir)
			case <-time.After(10 * time.Second):
				t.Fatal("the store went on without its directory")
			}
			assert.True(t, s.Unavailable())
			_, err = e.Win(ctx, second.BidID, 500_000)
			require.ErrorIs(t, err, ErrUnavailable, "nor any win after it")
			req := request("", 300)
			d, _ := e.Decide(ctx, cat, &req)
			assert.Equal(t, bidder.ReasonStateUnavailable, d.Reason, "no bids")
		})
	}
}

// TestCloseOnAFullDisk: a store closed (dspd's SIGTERM) while a win notice
// waits for room on a full disk closes at once: the waiting write gives up,
// unacknowledged, instead of holding the stop until there is room.
func TestCloseOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	full := fullDisk()
	fatal := make(chan string, 1)
	// A long bid window: the bid's record still waits in the bid writer,
	// which writes what waits as it closes.
	cfg := Config{Dir: "/state", FS: errorfs.Wrap(vfs.NewCrashableMem(), full), RetryEvery: time.Millisecond,
		BidWindow: time.Hour, Clock: func() time.Time { return testNow }, Fatal: func(msg string) {
			fatal <- msg // Pebble may find its WAL unwritable as it closes
			runtime.Goexit()
		}}
	s := open(t, cfg)
	e, cat := engineOn(s), freeOnly()
	waiting := decideOK(t, e, cat)
	full.on.Store(true)
	notice := make(chan error, 1)
	go func() {
		_, err := e.Win(ctx, waiting.BidID, 1_000_000)
		notice <- err
	}()
	require.Eventually(t, s.Unavailable, 10*time.Second, time.Millisecond, "the notice's write finds the disk full")
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-fatal:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for room on a full disk")
	}
	select {
	case err := <-notice:
		assert.Error(t, err, "the waiting notice was not acknowledged")
	case <-fatal:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting notice is still waiting after Close")
	}
}

// TestPreallocationNeedsNoRoom: a full disk that refuses only to
// preallocate (a new WAL file asks for about 18 MB ahead) does not stop
// the store: preallocation is skipped, and the writes go through.
func TestPreallocationNeedsNoRoom(t *testing.T) {
	ctx := context.Background()
	prealloc := &injector{err: fmt.Errorf("injected: %w", syscall.ENOSPC), pick: func(op errorfs.Op) bool {
		return op.Kind == errorfs.OpFilePreallocate
	}}
	prealloc.on.Store(true)
	// The operating system's files: Pebble preallocates only files with a
	// descriptor, which the in-memory file system's have not.
	s := open(t, Config{Dir: t.TempDir(), FS: errorfs.Wrap(vfs.Default, prealloc), RetryEvery: time.Hour,
		MemTableSize: 1 << 20, Clock: func() time.Time { return testNow }})
	defer s.Close()
	e, cat := engineOn(s), freeOnly()
	for range 3 {
		d := decideOK(t, e, cat)
		_, err := e.Win(ctx, d.BidID, 1_000_000)
		require.NoError(t, err)
	}
	require.NoError(t, s.db.Flush(), "a flush starts a new WAL file, which is preallocated")
	d := decideOK(t, e, cat)
	_, err := e.Win(ctx, d.BidID, 1_000_000)
	require.NoError(t, err)
	assert.False(t, s.Unavailable())
	assert.Zero(t, s.Failures(), "no write waited")
	assert.Positive(t, prealloc.passed.Load(), "preallocations were asked for, and refused")
}
