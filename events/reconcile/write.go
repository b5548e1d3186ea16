package reconcile

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recbid/dspd/bidder"
)

// WriteReport writes r for people: what was read, a table of the log's and
// the ledger's counters per campaign (its all-exchanges row, marked *,
// then one row per exchange; spend in the currency unit, exact; "-" where
// the ledger holds nothing), then every difference, in micros.
func WriteReport(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	ew.printf("day %s: %d records read, %d counted, %d duplicates dropped, %d test bids left out\n\n",
		r.Day, r.Records, r.Counted, r.Duplicates, r.TestBids)
	differs := map[Key]bool{}
	for _, d := range r.Differences {
		differs[d.Key] = true
	}
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 8, 2, ' ', 0)
	fmt.Fprint(tw, "campaign\texchange\tlog bids\tledger bids\tlog wins\tledger wins\tlog spend\tledger spend\tbillings\timpressions\tclicks\t\t\n")
	for _, row := range r.Rows {
		ex := row.Exchange
		if ex == "" {
			ex = "*"
		}
		ledger := [3]string{"-", "-", "-"}
		if row.InLedger {
			ledger = [3]string{strconv.FormatInt(row.Ledger.Bids, 10), strconv.FormatInt(row.Ledger.Wins, 10), row.Ledger.Spend.String()}
		}
		mark := ""
		if differs[row.Key] {
			mark = "differs"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t\n", row.Campaign, ex,
			row.Log.Bids, ledger[0], row.Log.Wins, ledger[1], row.Log.Spend, ledger[2],
			row.Log.Billings, row.Log.Impressions, row.Log.Clicks, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(table.String()) {
		ew.printf("%s\n", strings.TrimRight(line, " \n"))
	}
	if len(r.Rows) == 0 {
		ew.printf("(no counters on either side)\n")
	}
	ew.printf("\n")
	if r.Exact() {
		ew.printf("exact: the log and the ledger agree to the micro\n")
		return ew.err
	}
	ew.printf("%d differences (log − ledger):\n", len(r.Differences))
	for _, d := range r.Differences {
		ew.printf("  campaign %s, %s: %s log %d, ledger %d (%+d)\n", d.Campaign, exchangeName(d.Exchange), d.Field, d.Log, d.Ledger, d.Log-d.Ledger)
	}
	if len(r.OnlyInLog) > 0 {
		ew.printf("only in the log: %s\n", strings.Join(r.OnlyInLog, ", "))
	}
	if len(r.OnlyInLedger) > 0 {
		ew.printf("only in the ledger: %s\n", strings.Join(r.OnlyInLedger, ", "))
	}
	return ew.err
}

func exchangeName(ex string) string {
	if ex == "" {
		return "all exchanges"
	}
	return "exchange " + ex
}

// WriteInvoiceReport writes r for people: what was compared, then every
// difference.
func WriteInvoiceReport(w io.Writer, r *InvoiceReport) error {
	ew := &errWriter{w: w}
	which := "all exchanges"
	if r.Filter.Exchange != "" {
		which = "exchange " + r.Filter.Exchange
	}
	if r.Filter.ByDay {
		which += ", bids of " + r.Filter.Day.String()
	}
	ew.printf("invoice: %d bids billed; log: %d wins (%s), %d duplicate win records dropped; %d billed at their win's price\n",
		r.Billed, r.Won, which, r.Duplicates, r.Matched)
	if len(r.Unlogged) > 0 {
		ew.printf("\nbilled, without a win in the log (%d):\n", len(r.Unlogged))
		for _, u := range r.Unlogged {
			why := "no win record"
			if u.Why != "" {
				why = u.Why
			}
			ew.printf("  line %d: bid %s, price %s: %s\n", u.Line, u.BidID, u.Price, why)
		}
	}
	if len(r.Unbilled) > 0 {
		ew.printf("\nwon, not billed (%d):\n", len(r.Unbilled))
		for _, u := range r.Unbilled {
			ew.printf("  bid %s: campaign %s, exchange %s, price %s, bid %s, won %s\n", u.BidID, u.Campaign, u.Exchange,
				u.Price, u.BidTime.UTC().Format(time.RFC3339), u.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
		}
	}
	if len(r.PriceMismatches) > 0 {
		ew.printf("\nbilled at another price than the win's (%d):\n", len(r.PriceMismatches))
		for _, m := range r.PriceMismatches {
			ew.printf("  line %d: bid %s: billed %s, won at %s (%s)\n", m.Line, m.BidID, m.Price, m.Win.Price, signed(m.Price-m.Win.Price))
		}
	}
	if len(r.Repeated) > 0 {
		ew.printf("\nbilled again (%d):\n", len(r.Repeated))
		for _, l := range r.Repeated {
			ew.printf("  line %d: bid %s, price %s\n", l.Line, l.BidID, l.Price)
		}
	}
	if r.Exact() {
		ew.printf("exact: the invoice bills the log's wins at their prices\n")
	} else {
		ew.printf("\ndifferences: %d billed without a win, %d won not billed, %d at another price, %d billed again\n",
			len(r.Unlogged), len(r.Unbilled), len(r.PriceMismatches), len(r.Repeated))
	}
	return ew.err
}

func signed(m bidder.Micros) string {
	if m > 0 {
		return "+" + m.String()
	}
	return m.String()
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
