package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

var testTime = time.Date(2026, 12, 2, 8, 30, 15, 123_456_789, time.UTC)

func testRecord(t Type) Record {
	return Record{Type: t, Time: testTime, Instance: "dspd-1", BidID: bidder.BidID{0xab, 0xcd, 15: 0x01},
		Exchange: "adx", Campaign: `c-"1"`, Creative: "cr-1", Price: 1_250_000, RequestID: "req-1", ImpID: "1",
		Protocol: "openrtb", W: 300, H: 250, Floor: 500_000, User: bidder.UserKey{1, 2, 3}, BidTimeS: 1_796_200_000,
		BidPrice: 2_000_000, Reason: "no_match"}
}

// decode reads one encoded record back as a generic map, checking it is
// one line of one JSON object.
func decode(t *testing.T, line []byte) map[string]any {
	t.Helper()
	require.True(t, bytes.HasSuffix(line, []byte("\n")), "a record ends its line")
	require.Equal(t, 1, bytes.Count(line, []byte("\n")), "one line")
	var m map[string]any
	require.NoError(t, json.Unmarshal(line, &m), "%s", line)
	return m
}

func TestRecordFields(t *testing.T) {
	common := []string{"v", "type", "time", "instance", "bidid", "exchange", "campaign", "creative", "request_id", "imp_id"}
	for _, tc := range []struct {
		typ     Type
		price   bool
		more    []string
		notMore []string
	}{
		{TypeBid, true, []string{"protocol", "w", "h", "floor_micros", "user"}, []string{"reason", "bid_time"}},
		{TypeWin, true, []string{"bid_time", "bid_price_micros"}, []string{"user", "protocol"}},
		{TypeBilling, true, []string{"bid_time", "bid_price_micros"}, []string{"user"}},
		{TypeImpression, false, nil, []string{"user", "bid_time"}},
		{TypeClick, false, nil, []string{"user"}},
		{TypeNoBid, false, []string{"protocol", "reason"}, []string{"user", "w"}},
		{TypeComplete, false, nil, []string{"user"}},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			r := testRecord(tc.typ)
			m := decode(t, Append(nil, &r))
			for _, k := range append(common, tc.more...) {
				assert.Contains(t, m, k)
			}
			for _, k := range tc.notMore {
				assert.NotContains(t, m, k)
			}
			if tc.price {
				assert.EqualValues(t, 1_250_000, m["price_micros"])
			} else {
				assert.NotContains(t, m, "price_micros")
			}
			assert.EqualValues(t, 1, m["v"])
			assert.Equal(t, tc.typ.String(), m["type"])
			assert.Equal(t, "2026-12-02T08:30:15.123Z", m["time"], "RFC 3339, UTC, milliseconds")
			assert.Equal(t, "abcd0000000000000000000000000001", m["bidid"])
			assert.Equal(t, `c-"1"`, m["campaign"], "escaped")
		})
	}
}

func TestBidRecordUser(t *testing.T) {
	r := testRecord(TypeBid)
	m := decode(t, Append(nil, &r))
	assert.Equal(t, "01020300000000000000000000000000", m["user"], "the keyed hash, never the user id")
	r.User = bidder.UserKey{}
	m = decode(t, Append(nil, &r))
	assert.Nil(t, m["user"], "no user: null")
	assert.NotContains(t, m, "deal")
	r.Deal, r.Test = "D-1", true
	m = decode(t, Append(nil, &r))
	assert.Equal(t, "D-1", m["deal"])
	assert.Equal(t, true, m["test"])
}

func TestRecordTimeIsUTC(t *testing.T) {
	r := testRecord(TypeClick)
	r.Time = testTime.In(time.FixedZone("CET", 3600))
	assert.Equal(t, "2026-12-02T08:30:15.123Z", decode(t, Append(nil, &r))["time"])
}

func TestAuditRecord(t *testing.T) {
	r := Record{Type: TypeAudit, Time: testTime, Instance: "i", Campaign: "c-1", Action: "patch", Actor: "ops", Version: 3,
		Before: []byte("{\n  \"id\": \"c-1\"\n}"), After: nil}
	m := decode(t, Append(nil, &r))
	assert.Equal(t, map[string]any{"id": "c-1"}, m["before"], "compacted onto the line")
	assert.Nil(t, m["after"])
	assert.Equal(t, "ops", m["actor"])
	assert.Equal(t, "patch", m["action"])
	assert.NotContains(t, m, "bidid")
	r.After = []byte("not json")
	assert.Nil(t, decode(t, Append(nil, &r))["after"], "never a broken line")
}

func TestLineType(t *testing.T) {
	for _, typ := range Types() {
		r := testRecord(typ)
		got, ok := lineType(Append(nil, &r))
		require.True(t, ok)
		assert.Equal(t, typ, got)
	}
	_, ok := lineType([]byte(`{"type":"win"}`))
	assert.False(t, ok)
}

func TestParseType(t *testing.T) {
	for _, typ := range Types() {
		got, ok := ParseType(typ.String())
		assert.True(t, ok)
		assert.Equal(t, typ, got)
	}
	_, ok := ParseType("nope")
	assert.False(t, ok)
	assert.True(t, TypeWin.Once())
	assert.False(t, TypeBid.Once())
	assert.False(t, TypeAudit.Once())
	assert.True(t, strings.Contains(Type(99).String(), "unknown"))
}

func TestAppendAllocations(t *testing.T) {
	buf := make([]byte, 0, 4096)
	for _, typ := range []Type{TypeBid, TypeWin, TypeImpression, TypeNoBid} {
		r := testRecord(typ)
		allocs := testing.AllocsPerRun(100, func() { buf = Append(buf[:0], &r) })
		assert.Zero(t, allocs, typ.String())
	}
}

func BenchmarkAppend(b *testing.B) {
	r := testRecord(TypeBid)
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], &r)
	}
	b.ReportMetric(float64(len(buf)), "bytes/record")
}

// BenchmarkLogAdd is what the writer sustains: records added from the
// benchmark's goroutine, encoded into the batch, written and synced by the
// writer every 2 ms (dspd's default window), on a real file system.
func BenchmarkLogAdd(b *testing.B) {
	l, err := Open(Config{Dir: b.TempDir(), Window: 2 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	defer l.Close()
	r := testRecord(TypeBid)
	var last *Flush
	b.ReportAllocs()
	for b.Loop() {
		f, err := l.Add(&r, false)
		for errors.Is(err, ErrUnavailable) { // faster than the disk: wait for the writer
			require.NoError(b, last.Wait(context.Background()))
			f, err = l.Add(&r, false)
		}
		require.NoError(b, err)
		last = f
	}
	require.NoError(b, l.Flush()) // timed: every record written and synced
	b.StopTimer()
	st := l.Stats()
	b.ReportMetric(float64(st.Bytes)/float64(st.Records["bid"]), "bytes/record")
	b.ReportMetric(float64(st.Records["bid"])/float64(st.Syncs), "records/sync")
}
