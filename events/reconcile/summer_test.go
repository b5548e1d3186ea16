package reconcile_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/events/reconcile"
)

// TestSumsOfADay: bids by their request time, wins and spend by their
// bid's, billing notices, impressions and clicks by their own; test bids,
// no bids and audit records counted nowhere.
func TestSumsOfADay(t *testing.T) {
	for _, finish := range []bool{false, true} {
		t.Run(map[bool]string{false: "open segment", true: "finished segment"}[finish], func(t *testing.T) {
			dir := writeLog(t, t.TempDir(), finish, fixture()...)
			s := sum(t, dir)
			assert.Equal(t, fixtureCounts, s.Counts)
			assert.EqualValues(t, len(fixture()), s.Records)
			assert.EqualValues(t, 8, s.Counted)
			assert.EqualValues(t, 1, s.TestBids)
			assert.Zero(t, s.Duplicates)
		})
	}
}

// TestSumsDropDuplicates: the same records in two directories (or a
// stream read twice) are counted once, and the repeats counted.
func TestSumsDropDuplicates(t *testing.T) {
	a := writeLog(t, t.TempDir(), true, fixture()...)
	b := t.TempDir()
	copyFile(t, segmentFile(t, a), b)
	// b also holds a replica's own record, and a's records again.
	writeLog(t, b, false, bid(9, "c-2", "x1", "2026-12-01T13:00:00.000Z", 3_000_000))

	s := sum(t, a, b)
	want := map[reconcile.Key]reconcile.Counts{}
	for k, c := range fixtureCounts {
		want[k] = c
	}
	for _, k := range []reconcile.Key{{Campaign: "c-2"}, {Campaign: "c-2", Exchange: "x1"}} {
		c := want[k]
		c.Bids++
		want[k] = c
	}
	assert.Equal(t, want, s.Counts)
	assert.EqualValues(t, 8, s.Duplicates, "every counted record of a, once more")
	assert.EqualValues(t, 9, s.Counted)
}

// TestSumsOfAStream: a dump of the records (a Kafka topic's), plain or
// gzipped, with a repeat and no newline at its end, sums as the
// directory does.
func TestSumsOfAStream(t *testing.T) {
	var dump bytes.Buffer
	for _, r := range fixture() {
		dump.Write(events.Append(nil, r))
	}
	dump.Write(events.Append(nil, fixture()[1])) // delivered twice
	dump.WriteString("\r\n")                     // an empty line
	dump.Write(bytes.TrimSuffix(events.Append(nil, fixture()[4]), []byte("\n")))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(dump.Bytes())
	require.NoError(t, zw.Close())

	for name, data := range map[string][]byte{"plain": dump.Bytes(), "gzip": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			s := reconcile.NewSummer(day)
			require.NoError(t, reconcile.ReadLines(bytes.NewReader(data), "dump", s.AddLine))
			assert.Equal(t, fixtureCounts, s.Sums().Counts)
			assert.EqualValues(t, 2, s.Sums().Duplicates)
		})
	}
}

// TestBadRecordIsNamed: a line that is not a record stops the reading,
// naming where it is.
func TestBadRecordIsNamed(t *testing.T) {
	dump := string(events.Append(nil, fixture()[0])) + "{\"v\":1,\"type\":\"win\"}\n"
	s := reconcile.NewSummer(day)
	err := reconcile.ReadLines(bytes.NewReader([]byte(dump)), "dump.jsonl", s.AddLine)
	require.ErrorIs(t, err, reconcile.ErrRecord)
	assert.Contains(t, err.Error(), "dump.jsonl line 2")

	dir := writeLog(t, t.TempDir(), false, fixture()[:3]...)
	err = reconcile.ReadDirs(context.Background(), []string{dir}, func([]byte) error { return reconcile.ErrRecord })
	require.ErrorIs(t, err, reconcile.ErrRecord)
	assert.Contains(t, err.Error(), segmentFile(t, dir)+" line 1")
}

func TestParseRecord(t *testing.T) {
	win := `{"v":1,"type":"win","time":"2026-12-02T00:00:02.000Z","instance":"i","bidid":"b1d0000000000000000000000000000002",` +
		`"exchange":"x2","campaign":"c-1","creative":"c","price_micros":7250000,"request_id":"","imp_id":"","bid_time":"2026-12-01T23:59:59Z","bid_price_micros":9000000}`
	tests := []struct {
		name, line, err string
	}{
		{name: "a win", line: string(events.Append(nil, fixture()[12]))},
		{name: "a no bid", line: string(events.Append(nil, fixture()[9]))},
		{name: "an audit record", line: string(events.Append(nil, fixture()[10]))},
		{name: "a later type", line: `{"v":1,"type":"viewable","time":"2026-12-01T00:00:00Z"}`},
		{name: "not JSON", line: `{"v":1,`, err: "not an event record"},
		{name: "not an object", line: `[1]`, err: "not a JSON object"},
		{name: "no version", line: `{"type":"bid"}`, err: `no schema version "v"`},
		{name: "a later version", line: `{"v":2,"type":"bid"}`, err: "schema version 2 (this reads version 1)"},
		{name: "no type", line: `{"v":1,"time":"2026-12-01T00:00:00Z"}`, err: `no "type"`},
		{name: "a bad time", line: `{"v":1,"type":"click","time":"yesterday"}`, err: `"time" is not an RFC 3339 time`},
		{name: "a bad bid id", line: `{"v":1,"type":"click","time":"2026-12-01T00:00:00Z","bidid":"xyz"}`, err: `bidid "xyz" is not 32 hex digits`},
		{name: "a win without a price", line: `{"v":1,"type":"win","time":"2026-12-01T00:00:00Z","bidid":"b1d00000000000000000000000000002","bid_time":"2026-12-01T00:00:00Z"}`, err: `no "price_micros"`},
		{name: "a fractional price", line: `{"v":1,"type":"bid","time":"2026-12-01T00:00:00Z","bidid":"b1d00000000000000000000000000002","price_micros":1.5}`, err: `"price_micros" is not a whole number of micros`},
		{name: "a win without its bid's time", line: `{"v":1,"type":"win","time":"2026-12-01T00:00:00Z","bidid":"b1d00000000000000000000000000002","price_micros":1}`, err: `no "bid_time"`},
		{name: "a 34-digit bid id", line: win, err: "is not 32 hex digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reconcile.ParseRecord([]byte(tt.line))
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, reconcile.ErrRecord)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	r, err := reconcile.ParseRecord(events.Append(nil, fixture()[12]))
	require.NoError(t, err)
	assert.Equal(t, reconcile.Record{Type: events.TypeWin, Time: at("2026-12-02T00:00:02Z"), Instance: "", BidID: id(2), Exchange: "x2",
		Campaign: "c-1", Creative: "c-1-cr", Price: 7_250_000, BidTime: at("2026-12-01T23:59:59Z")}, r)
}

// TestReadDirsWhileSegmentsMove: a segment finished (renamed) after the
// directory was listed is read under its new name; one deleted meanwhile
// (the retention) is passed over.
func TestReadDirsWhileSegmentsMove(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, true, fixture()[:3]...)
	writeLog(t, dir, true, fixture()[3:6]...)
	writeLog(t, dir, false, fixture()[6:]...)
	segs, err := events.List(dir)
	require.NoError(t, err)
	require.Len(t, segs, 3)
	require.True(t, segs[2].Open)

	var got []reconcile.Record
	require.NoError(t, reconcile.ReadDirs(context.Background(), []string{dir}, func(line []byte) error {
		if len(got) == 0 {
			require.NoError(t, os.Remove(segs[1].Path))
			require.NoError(t, os.Rename(segs[2].Path, strings.TrimSuffix(segs[2].Path, ".open")))
		}
		r, err := reconcile.ParseRecord(line)
		require.NoError(t, err)
		got = append(got, r)
		return nil
	}))
	require.Len(t, got, 3+len(fixture()[6:]))
	for i, r := range append(fixture()[:3], fixture()[6:]...) {
		assert.Equal(t, r.Type, got[i].Type, i)
		assert.Equal(t, r.BidID, got[i].BidID, i)
	}
}

// TestSumsOfDeals: a deal's bids and wins are counted under its label too,
// as the books count them (bidder.DealLabel).
func TestSumsOfDeals(t *testing.T) {
	at := time.Date(2026, 11, 4, 9, 0, 0, 0, time.UTC)
	bid := events.Record{Type: events.TypeBid, Time: at, BidID: bidder.BidID{1}, Exchange: "adx", Campaign: "c-1", Creative: "cr",
		Price: 2_000_000, Deal: "D-1"}
	win := events.Record{Type: events.TypeWin, Time: at, BidID: bidder.BidID{1}, Exchange: "adx", Campaign: "c-1", Creative: "cr",
		Price: 1_500_000, BidTimeS: at.Unix(), BidPrice: 2_000_000, Deal: "D-1"}
	s := reconcile.NewSummer(bidder.DayOfTime(at))
	require.NoError(t, s.AddLine(events.Append(nil, &bid)))
	require.NoError(t, s.AddLine(events.Append(nil, &win)))
	want := reconcile.Counts{Bids: 1, Wins: 1, Spend: 1_500_000}
	assert.Equal(t, want, s.Sums().Counts[reconcile.Key{Campaign: "c-1", Exchange: bidder.DealLabel("D-1")}])
	assert.Equal(t, want, s.Sums().Counts[reconcile.Key{Campaign: "c-1"}])
}
