package disk_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/disk"
)

// readNow is the server clock of these tests: 2026-12-01 10:00 UTC.
var readNow = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func openStore(t *testing.T, dir string) *disk.Store {
	t.Helper()
	s, err := disk.Open(disk.Config{Dir: dir, Clock: func() time.Time { return readNow },
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return s
}

// TestReadDayStats: the counters a stopped store left, read back without
// opening it: per campaign, for all exchanges ("") and for each, of the day
// asked only; test bids count nothing.
func TestReadDayStats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	today := bidder.DayOfTime(readNow)
	s := openStore(t, dir)
	bid := func(campaign, exchange string, at time.Time, test bool) {
		_, err := s.Bids().Save(ctx, bidder.BidRecord{CampaignID: campaign, CreativeID: campaign + "-cr", Exchange: exchange,
			TimeS: at.Unix(), Price: 2_000_000, Test: test}, readNow)
		require.NoError(t, err)
	}
	win := func(campaign, exchange string, day bidder.Day, price bidder.Micros) {
		require.NoError(t, s.Ledger().RecordWin(ctx, bidder.Win{CampaignID: campaign, Exchange: exchange, Day: day, Price: price}))
	}
	bid("c-1", "x1", readNow, false)
	bid("c-1", "x1", readNow, false)
	bid("c-1", "x2", readNow, false)
	bid("c-1", "x2", readNow, true) // a test bid
	bid("c-2", "x1", readNow.Add(-24*time.Hour), false)
	win("c-1", "x1", today, 1_250_000)
	win("c-1", "x2", today, 7_250_000)
	win("c-2", "x1", today-1, 3_000_000)
	require.NoError(t, s.Close())

	tests := []struct {
		name string
		day  bidder.Day
		want map[string]map[string]bidder.DayStats
	}{
		{"today", today, map[string]map[string]bidder.DayStats{
			"c-1": {
				"":   {Bids: 3, Wins: 2, Spend: 8_500_000},
				"x1": {Bids: 2, Wins: 1, Spend: 1_250_000},
				"x2": {Bids: 1, Wins: 1, Spend: 7_250_000},
			},
		}},
		{"yesterday", today - 1, map[string]map[string]bidder.DayStats{
			"c-2": {
				"":   {Bids: 1, Wins: 1, Spend: 3_000_000},
				"x1": {Bids: 1, Wins: 1, Spend: 3_000_000},
			},
		}},
		{"a day without counters", today + 1, map[string]map[string]bidder.DayStats{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := disk.ReadDayStats(dir, tt.day)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	// What was read is what the store itself reads back.
	s = openStore(t, dir)
	defer s.Close()
	st, ok, err := s.Ledger().Stats(ctx, "c-1", "x2", today)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, bidder.DayStats{Bids: 1, Wins: 1, Spend: 7_250_000}, st)
}

// TestReadDayStatsRefusesAHeldDirectory: while a dspd holds the directory,
// its counters are not read, and the error says what to do.
func TestReadDayStatsRefusesAHeldDirectory(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	_, err := disk.ReadDayStats(dir, bidder.DayOfTime(readNow))
	require.ErrorIs(t, err, disk.ErrLocked)
	assert.Contains(t, err.Error(), "stop dspd first or reconcile against its admin listener")
	require.NoError(t, s.Close())

	_, err = disk.ReadDayStats(dir, bidder.DayOfTime(readNow))
	require.NoError(t, err, "once stopped, it is read")
	s = openStore(t, dir)
	require.NoError(t, s.Close(), "and the read left the directory to dspd")
}

func TestReadDayStatsNotAStateDirectory(t *testing.T) {
	tests := []struct {
		name, dir, err string
	}{
		{"empty directory", t.TempDir(), "is not a dspd state directory"},
		{"missing directory", "/nonexistent/state", "is not a dspd state directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := disk.ReadDayStats(tt.dir, 0)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}
