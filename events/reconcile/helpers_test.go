package reconcile_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/events/reconcile"
)

// day is the day the tests reconcile: 2026-12-01.
var day = bidder.DayOfTime(at("2026-12-01T00:00:00Z"))

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func id(n byte) bidder.BidID { return bidder.BidID{0xb1, 0xd0, 15: n} }

func bid(n byte, campaign, exchange, when string, price bidder.Micros) *events.Record {
	return &events.Record{Type: events.TypeBid, Time: at(when), BidID: id(n), Exchange: exchange, Campaign: campaign,
		Creative: campaign + "-cr", Price: price, RequestID: "req", ImpID: "1", Protocol: "recbid", W: 300, H: 250, Floor: 500_000}
}

func notice(t events.Type, n byte, campaign, exchange, when, bidTime string, price bidder.Micros) *events.Record {
	return &events.Record{Type: t, Time: at(when), BidID: id(n), Exchange: exchange, Campaign: campaign,
		Creative: campaign + "-cr", Price: price, BidTimeS: at(bidTime).Unix(), BidPrice: 2_000_000}
}

func tracker(t events.Type, n byte, campaign, exchange, when string) *events.Record {
	return &events.Record{Type: t, Time: at(when), BidID: id(n), Exchange: exchange, Campaign: campaign, Creative: campaign + "-cr"}
}

// fixture is one replica's records of the day and of its edges:
//
//   - c-1 on x1: bid 1 at 10:00, won at 1.25 (billed, rendered, clicked);
//   - c-1 on x2: bid 2 at 23:59:59.5, won after midnight at 7.25: the day's;
//   - c-1 on x1: bid 3 the day before, won on the day: not the day's;
//   - c-2 on x1: bid 4, a test bid, and bid 5, not won;
//   - a no bid and an audit record, counted nowhere.
func fixture() []*events.Record {
	test := bid(4, "c-2", "x1", "2026-12-01T11:00:00.000Z", 3_000_000)
	test.Test = true
	return []*events.Record{
		bid(3, "c-1", "x1", "2026-11-30T23:59:59.900Z", 2_000_000),
		bid(1, "c-1", "x1", "2026-12-01T10:00:00.250Z", 2_000_000),
		notice(events.TypeWin, 3, "c-1", "x1", "2026-12-01T00:00:01.000Z", "2026-11-30T23:59:59Z", 1_500_000),
		notice(events.TypeWin, 1, "c-1", "x1", "2026-12-01T10:00:01.000Z", "2026-12-01T10:00:00Z", 1_250_000),
		notice(events.TypeBilling, 1, "c-1", "x1", "2026-12-01T10:00:02.000Z", "2026-12-01T10:00:00Z", 1_250_000),
		tracker(events.TypeImpression, 1, "c-1", "x1", "2026-12-01T10:00:02.500Z"),
		tracker(events.TypeClick, 1, "c-1", "x1", "2026-12-01T10:00:09.000Z"),
		test,
		bid(5, "c-2", "x1", "2026-12-01T12:00:00.000Z", 3_000_000),
		{Type: events.TypeNoBid, Time: at("2026-12-01T12:00:01.000Z"), Exchange: "x1", Protocol: "openrtb", Reason: "no_match"},
		{Type: events.TypeAudit, Time: at("2026-12-01T12:00:02.000Z"), Campaign: "c-3", Actor: "ops", Version: 2, After: []byte(`{"id":"c-3"}`)},
		bid(2, "c-1", "x2", "2026-12-01T23:59:59.500Z", 9_000_000),
		notice(events.TypeWin, 2, "c-1", "x2", "2026-12-02T00:00:02.000Z", "2026-12-01T23:59:59Z", 7_250_000),
	}
}

// fixtureCounts are the fixture's sums on the day.
var fixtureCounts = map[reconcile.Key]reconcile.Counts{
	{Campaign: "c-1"}:                 {Bids: 2, Wins: 2, Spend: 8_500_000, Billings: 1, Impressions: 1, Clicks: 1},
	{Campaign: "c-1", Exchange: "x1"}: {Bids: 1, Wins: 1, Spend: 1_250_000, Billings: 1, Impressions: 1, Clicks: 1},
	{Campaign: "c-1", Exchange: "x2"}: {Bids: 1, Wins: 1, Spend: 7_250_000},
	{Campaign: "c-2"}:                 {Bids: 1},
	{Campaign: "c-2", Exchange: "x1"}: {Bids: 1},
}

// fixtureLedger is what the books hold of the fixture's day.
func fixtureLedger() ledgerMap {
	out := ledgerMap{}
	for k, c := range fixtureCounts {
		out[k] = c.Stats()
	}
	return out
}

// ledgerMap is a Ledger that holds its counters in a map.
type ledgerMap map[reconcile.Key]bidder.DayStats

func (l ledgerMap) DayStats(context.Context, bidder.Day, []reconcile.Key) (map[reconcile.Key]bidder.DayStats, error) {
	return l, nil
}

// writeLog writes records to a new event log in dir through events.Log,
// finishing the segment when finish (else it stays open, as a running
// dspd leaves it), and returns dir.
func writeLog(t *testing.T, dir string, finish bool, recs ...*events.Record) string {
	t.Helper()
	l, err := events.Open(events.Config{Dir: dir, Instance: "dspd-1", Logger: slog.New(slog.DiscardHandler),
		Fatal: func(msg string) { t.Errorf("event log: %s", msg) }})
	require.NoError(t, err)
	var last *events.Flush
	for _, r := range recs {
		last, err = l.Add(r, false)
		require.NoError(t, err)
	}
	if last != nil {
		require.NoError(t, last.Wait(context.Background()))
	}
	if finish {
		require.NoError(t, l.Rotate())
	}
	require.NoError(t, l.Close())
	return dir
}

// sum sums the day of dirs.
func sum(t *testing.T, dirs ...string) reconcile.Sums {
	t.Helper()
	s := reconcile.NewSummer(day)
	require.NoError(t, reconcile.ReadDirs(context.Background(), dirs, s.AddLine))
	return s.Sums()
}

// segmentFile returns the path of dir's first segment.
func segmentFile(t *testing.T, dir string) string {
	t.Helper()
	segs, err := events.List(dir)
	require.NoError(t, err)
	require.NotEmpty(t, segs)
	return segs[0].Path
}

// copyFile copies a segment into another directory.
func copyFile(t *testing.T, from, toDir string) {
	t.Helper()
	src, err := os.Open(from)
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, os.MkdirAll(toDir, 0o755))
	dst, err := os.Create(filepath.Join(toDir, filepath.Base(from)))
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
}
