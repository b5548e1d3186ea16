package reconcile_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events/reconcile"
)

// fixtureWins gathers the fixture's wins: bid 3 (x1, 1.5, the day
// before), bid 1 (x1, 1.25), bid 2 (x2, 7.25).
func fixtureWins(t *testing.T) *reconcile.Wins {
	t.Helper()
	dir := writeLog(t, t.TempDir(), true, fixture()...)
	w := reconcile.NewWins()
	require.NoError(t, reconcile.ReadDirs(context.Background(), []string{dir, dir}, w.AddLine))
	require.Equal(t, 3, w.Len())
	require.EqualValues(t, 3, w.Duplicates, "the directory read twice")
	return w
}

func invoice(t *testing.T, csv string) *reconcile.Invoice {
	t.Helper()
	inv, err := reconcile.ReadInvoice(strings.NewReader(csv))
	require.NoError(t, err)
	return inv
}

func TestCompareInvoice(t *testing.T) {
	x1 := reconcile.InvoiceFilter{Exchange: "x1"}
	x1Day := reconcile.InvoiceFilter{Exchange: "x1", ByDay: true, Day: day}
	line := func(n int, bid byte, price bidder.Micros) reconcile.InvoiceLine {
		return reconcile.InvoiceLine{Line: n, BidID: id(bid), Price: price}
	}
	tests := []struct {
		name       string
		csv        string
		filter     reconcile.InvoiceFilter
		matched    int
		unlogged   []reconcile.Unlogged
		unbilled   []byte // bid ids
		mismatches []reconcile.InvoiceLine
		repeated   []reconcile.InvoiceLine
	}{
		{
			name:    "matching, decimals with a header",
			csv:     "bidid,price\n" + id(3).String() + ",1.5\n" + id(1).String() + ",1.25\n",
			filter:  x1,
			matched: 2,
		},
		{
			name:    "matching, micros, upper-case hex, CRLF",
			csv:     "bidid,price_micros\r\n" + strings.ToUpper(id(1).String()) + ",1250000\r\n" + id(3).String() + ",1500000\r\n",
			filter:  x1,
			matched: 2,
		},
		{
			name:    "matching, one day, no header",
			csv:     id(1).String() + ",1.250000\n",
			filter:  x1Day,
			matched: 1,
		},
		{
			name:     "missing both ways",
			csv:      id(1).String() + ",1.25\n" + id(7).String() + ",0.5\n",
			filter:   x1,
			matched:  1,
			unlogged: []reconcile.Unlogged{{InvoiceLine: line(2, 7, 500_000)}},
			unbilled: []byte{3},
		},
		{
			name:    "billed from another exchange or day",
			csv:     id(1).String() + ",1.25\n" + id(2).String() + ",7.25\n" + id(3).String() + ",1.5\n",
			filter:  x1Day,
			matched: 1,
			unlogged: []reconcile.Unlogged{
				{InvoiceLine: line(2, 2, 7_250_000), Why: "the log's win is x2's, not x1's"},
				{InvoiceLine: line(3, 3, 1_500_000), Why: "the log's win is of a bid made on 2026-11-30, not 2026-12-01"},
			},
		},
		{
			name:       "a price a micro off, and a bid billed twice",
			csv:        "bidid,price\n" + id(1).String() + ",1.250001\n" + id(3).String() + ",1.5\n" + id(3).String() + ",1.5\n",
			filter:     x1,
			matched:    1,
			mismatches: []reconcile.InvoiceLine{line(2, 1, 1_250_001)},
			repeated:   []reconcile.InvoiceLine{line(4, 3, 1_500_000)},
		},
		{
			name:     "all exchanges",
			csv:      id(2).String() + ",7.25\n",
			matched:  1,
			unbilled: []byte{3, 1},
		},
	}
	wins := fixtureWins(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reconcile.CompareInvoice(invoice(t, tt.csv), wins, tt.filter)
			assert.Equal(t, tt.matched, r.Matched)
			assert.Equal(t, tt.unlogged, r.Unlogged)
			var unbilled []byte
			for _, w := range r.Unbilled {
				unbilled = append(unbilled, w.BidID[15])
			}
			assert.Equal(t, tt.unbilled, unbilled, "by bid time")
			var mismatches []reconcile.InvoiceLine
			for _, m := range r.PriceMismatches {
				mismatches = append(mismatches, m.InvoiceLine)
			}
			assert.Equal(t, tt.mismatches, mismatches)
			assert.Equal(t, tt.repeated, r.Repeated)
			exact := tt.unlogged == nil && tt.unbilled == nil && tt.mismatches == nil && tt.repeated == nil
			assert.Equal(t, exact, r.Exact())

			var out bytes.Buffer
			require.NoError(t, reconcile.WriteInvoiceReport(&out, r))
			if exact {
				assert.Contains(t, out.String(), "exact: the invoice bills the log's wins at their prices")
			}
			for _, u := range tt.unlogged {
				assert.Contains(t, out.String(), u.BidID.String())
			}
		})
	}
}

func TestReadInvoiceMalformed(t *testing.T) {
	good := id(1).String()
	tests := []struct {
		name, csv, err string
	}{
		{"three columns", "bidid,price\n" + good + ",1.25,USD\n", "line 2: wrong number of fields"},
		{"a short bid id", "abc,1.25\n", `line 1: bid id "abc" is not 32 hex digits`},
		{"seven decimals", good + ",1.2500001\n", `line 1: price "1.2500001": not a decimal: more than 6 fractional digits`},
		{"a negative price", good + ",-1\n", `line 1: price "-1"`},
		{"an exponent", good + ",1e3\n", `line 1: price "1e3"`},
		{"spaces", good + ", 1.25\n", `line 1: price " 1.25"`},
		{"an empty price", good + ",\n", `line 1: price ""`},
		{"a decimal under a micros header", "bidid,price_micros\n" + good + ",1.25\n", `line 2: price "1.25": not a decimal: not a whole number of micros`},
		{"a signed micros price", "bidid,price_micros\n" + good + ",+5\n", `line 2: price "+5"`},
		{"an unknown header", "bidid,amount\n", `line 1: header "amount": the second column is price or price_micros`},
		{"a header later", good + ",1\nbidid,price\n", `line 2: bid id "bidid"`},
		{"a bare quote", good + `,1"5` + "\n", "line 1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reconcile.ReadInvoice(strings.NewReader(tt.csv))
			require.ErrorIs(t, err, reconcile.ErrInvoice)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	inv := invoice(t, "\ufeffbidid,price\n")
	assert.Empty(t, inv.Lines, "a header only, after a byte order mark")
}
