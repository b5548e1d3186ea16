package reconcile

import (
	"context"
	"fmt"
	"slices"

	"github.com/recbid/dspd/bidder"
)

// The fields a Difference names, as /admin/stats spells them.
const (
	FieldBids  = "bids"
	FieldWins  = "wins"
	FieldSpend = "spend_micros"
)

// Row is one key's counters on both sides.
type Row struct {
	Key
	Log      Counts
	Ledger   bidder.DayStats
	InLedger bool // the ledger holds counters for the key (perhaps zeros)
}

// Difference is one counter the log and the ledger disagree on.
type Difference struct {
	Key
	Field  string // FieldBids, FieldWins or FieldSpend
	Log    int64
	Ledger int64
}

// Report is the comparison of one day's log with the ledger.
type Report struct {
	Day bidder.Day
	// Rows are the keys either side has a counter above zero for, by
	// campaign, each campaign's all-exchanges row first.
	Rows []Row
	// Differences lists every counter that differs, in the rows' order.
	Differences []Difference
	// OnlyInLog and OnlyInLedger are the campaigns whose day only one side
	// counted anything of (bids, wins or spend).
	OnlyInLog, OnlyInLedger []string
	// The log's reading (Sums).
	Records, Counted, Duplicates, TestBids int64
}

// Exact reports whether the log and the ledger agree to the micro.
func (r *Report) Exact() bool { return len(r.Differences) == 0 }

// Compare compares the sums of a day with the ledger's counters of that
// day, for every campaign either side has, for all exchanges and for each.
func Compare(ctx context.Context, sums Sums, l Ledger) (*Report, error) {
	keys := make([]Key, 0, len(sums.Counts))
	for k := range sums.Counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	ledger, err := l.DayStats(ctx, sums.Day, keys)
	if err != nil {
		return nil, fmt.Errorf("reconcile: ledger of %s: %w", sums.Day, err)
	}
	for k := range ledger {
		if _, ok := sums.Counts[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareKeys)
	r := &Report{Day: sums.Day, Records: sums.Records, Counted: sums.Counted, Duplicates: sums.Duplicates, TestBids: sums.TestBids}
	for _, k := range keys {
		row := Row{Key: k, Log: sums.Counts[k]}
		row.Ledger, row.InLedger = ledger[k]
		if row.Log == (Counts{}) && row.Ledger == (bidder.DayStats{}) {
			continue // asked for, nothing on either side
		}
		r.Rows = append(r.Rows, row)
		logSt, ledgerSt := row.Log.Stats(), row.Ledger
		for _, f := range []struct {
			name        string
			log, ledger int64
		}{
			{FieldBids, logSt.Bids, ledgerSt.Bids},
			{FieldWins, logSt.Wins, ledgerSt.Wins},
			{FieldSpend, int64(logSt.Spend), int64(ledgerSt.Spend)},
		} {
			if f.log != f.ledger {
				r.Differences = append(r.Differences, Difference{Key: k, Field: f.name, Log: f.log, Ledger: f.ledger})
			}
		}
		if k.Exchange != "" {
			continue
		}
		switch zero := (bidder.DayStats{}); {
		case logSt != zero && ledgerSt == zero:
			r.OnlyInLog = append(r.OnlyInLog, k.Campaign)
		case logSt == zero && ledgerSt != zero:
			r.OnlyInLedger = append(r.OnlyInLedger, k.Campaign)
		}
	}
	return r, nil
}
