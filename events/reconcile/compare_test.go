package reconcile_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/events/reconcile"
	"github.com/recbid/dspd/state/disk"
)

func TestCompareExact(t *testing.T) {
	dir := writeLog(t, t.TempDir(), true, fixture()...)
	r, err := reconcile.Compare(context.Background(), sum(t, dir), fixtureLedger())
	require.NoError(t, err)
	assert.True(t, r.Exact(), "%+v", r.Differences)
	assert.Len(t, r.Rows, 5)
	assert.Empty(t, r.OnlyInLog)
	assert.Empty(t, r.OnlyInLedger)

	var out bytes.Buffer
	require.NoError(t, reconcile.WriteReport(&out, r))
	assert.Contains(t, out.String(), "exact: the log and the ledger agree to the micro")
	assert.Contains(t, out.String(), "8.5")
}

// TestCompareTampered: a finished segment edited (a price raised by one
// micro, a record deleted) against the books it was written with: every
// difference is named.
func TestCompareTampered(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(seg string) string
		want   []reconcile.Difference
		only   []string // campaigns only in the ledger
	}{
		{
			name: "a win's price raised by a micro",
			tamper: func(seg string) string {
				return strings.Replace(seg, `"price_micros":1250000,`, `"price_micros":1250001,`, 1)
			},
			want: []reconcile.Difference{
				{Key: reconcile.Key{Campaign: "c-1"}, Field: reconcile.FieldSpend, Log: 8_500_001, Ledger: 8_500_000},
				{Key: reconcile.Key{Campaign: "c-1", Exchange: "x1"}, Field: reconcile.FieldSpend, Log: 1_250_001, Ledger: 1_250_000},
			},
		},
		{
			name: "a bid deleted",
			tamper: func(seg string) string {
				lines := strings.SplitAfter(seg, "\n")
				kept := lines[:0]
				for _, l := range lines {
					if !strings.Contains(l, id(5).String()) {
						kept = append(kept, l)
					}
				}
				return strings.Join(kept, "")
			},
			want: []reconcile.Difference{
				{Key: reconcile.Key{Campaign: "c-2"}, Field: reconcile.FieldBids, Log: 0, Ledger: 1},
				{Key: reconcile.Key{Campaign: "c-2", Exchange: "x1"}, Field: reconcile.FieldBids, Log: 0, Ledger: 1},
			},
			only: []string{"c-2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeLog(t, t.TempDir(), true, fixture()...)
			seg := segmentFile(t, dir)
			require.True(t, strings.HasSuffix(seg, ".jsonl"), seg)
			data, err := os.ReadFile(seg)
			require.NoError(t, err)
			tampered := tt.tamper(string(data))
			require.NotEqual(t, string(data), tampered)
			require.NoError(t, os.WriteFile(seg, []byte(tampered), 0o644))

			r, err := reconcile.Compare(context.Background(), sum(t, dir), fixtureLedger())
			require.NoError(t, err)
			assert.False(t, r.Exact())
			assert.Equal(t, tt.want, r.Differences)
			assert.Equal(t, tt.only, r.OnlyInLedger)
			assert.Empty(t, r.OnlyInLog)

			var out bytes.Buffer
			require.NoError(t, reconcile.WriteReport(&out, r))
			d := tt.want[0]
			assert.Contains(t, out.String(), "campaign "+d.Campaign+", all exchanges: "+d.Field)
		})
	}
}

// TestCompareOneSided: campaigns on one side only are named.
func TestCompareOneSided(t *testing.T) {
	dir := writeLog(t, t.TempDir(), false, fixture()...)
	ledger := fixtureLedger()
	delete(ledger, reconcile.Key{Campaign: "c-2"})
	delete(ledger, reconcile.Key{Campaign: "c-2", Exchange: "x1"})
	ledger[reconcile.Key{Campaign: "c-9"}] = bidder.DayStats{Wins: 1, Spend: 1}
	ledger[reconcile.Key{Campaign: "c-8"}] = bidder.DayStats{} // known, nothing counted: not a difference
	r, err := reconcile.Compare(context.Background(), sum(t, dir), ledger)
	require.NoError(t, err)
	assert.Equal(t, []string{"c-2"}, r.OnlyInLog)
	assert.Equal(t, []string{"c-9"}, r.OnlyInLedger)
	assert.Equal(t, []reconcile.Difference{
		{Key: reconcile.Key{Campaign: "c-2"}, Field: reconcile.FieldBids, Log: 1, Ledger: 0},
		{Key: reconcile.Key{Campaign: "c-2", Exchange: "x1"}, Field: reconcile.FieldBids, Log: 1, Ledger: 0},
		{Key: reconcile.Key{Campaign: "c-9"}, Field: reconcile.FieldWins, Log: 0, Ledger: 1},
		{Key: reconcile.Key{Campaign: "c-9"}, Field: reconcile.FieldSpend, Log: 0, Ledger: 1},
	}, r.Differences)
	var out bytes.Buffer
	require.NoError(t, reconcile.WriteReport(&out, r))
	assert.Contains(t, out.String(), "only in the log: c-2")
	assert.Contains(t, out.String(), "only in the ledger: c-9")
	assert.NotContains(t, out.String(), "c-8")
}

// TestCompareWithAStateDirectory: a disk state that booked the fixture's
// bids and wins, stopped, agrees with the log to the micro.
func TestCompareWithAStateDirectory(t *testing.T) {
	ctx := context.Background()
	stateDir := t.TempDir()
	now := at("2026-12-02T01:00:00Z")
	s, err := disk.Open(disk.Config{Dir: stateDir, Clock: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	for _, r := range fixture() {
		switch r.Type {
		case events.TypeBid:
			_, err := s.Bids().Save(ctx, bidder.BidRecord{CampaignID: r.Campaign, CreativeID: r.Creative, Exchange: r.Exchange,
				TimeS: r.Time.Unix(), Price: r.Price, Test: r.Test}, now)
			require.NoError(t, err)
		case events.TypeWin:
			require.NoError(t, s.Ledger().RecordWin(ctx, bidder.Win{BidID: r.BidID, CampaignID: r.Campaign, Exchange: r.Exchange,
				Day: bidder.DayOfSec(r.BidTimeS), Price: r.Price}))
		}
	}
	_, err = reconcile.StateLedger{Dir: stateDir}.DayStats(ctx, day, nil)
	require.ErrorIs(t, err, disk.ErrLocked, "not while dspd holds it")
	require.NoError(t, s.Close())

	dir := writeLog(t, t.TempDir(), false, fixture()...)
	r, err := reconcile.Compare(ctx, sum(t, dir), reconcile.StateLedger{Dir: stateDir})
	require.NoError(t, err)
	assert.True(t, r.Exact(), "%+v", r.Differences)
	for _, row := range r.Rows {
		assert.True(t, row.InLedger, row.Key)
	}
}
