package reconcile

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/recbid/dspd/bidder"
)

// InvoiceFilter chooses the log's wins an invoice is compared with.
type InvoiceFilter struct {
	// Exchange keeps the wins of one exchange ("": of all).
	Exchange string
	// ByDay keeps only the wins the books count under Day (their bid's
	// request day, as Summer counts them).
	ByDay bool
	Day   bidder.Day
}

func (f InvoiceFilter) keeps(w Win) bool {
	return (f.Exchange == "" || w.Exchange == f.Exchange) && (!f.ByDay || w.Day() == f.Day)
}

// whyNot says why f leaves w out.
func (f InvoiceFilter) whyNot(w Win) string {
	if f.Exchange != "" && w.Exchange != f.Exchange {
		return fmt.Sprintf("the log's win is %s's, not %s's", w.Exchange, f.Exchange)
	}
	return fmt.Sprintf("the log's win is of a bid made on %s, not %s", w.Day(), f.Day)
}

// Unlogged is a bid an invoice bills that the log has no win of (among
// the wins compared).
type Unlogged struct {
	InvoiceLine
	// Why is "" when the log has no win of the bid at all, or says why
	// its win was not compared (another exchange's, another day's).
	Why string
}

// PriceMismatch is a bid billed at a price other than its win's.
type PriceMismatch struct {
	InvoiceLine
	Win Win
}

// InvoiceReport is the comparison of an invoice with the log's wins.
type InvoiceReport struct {
	Filter  InvoiceFilter
	Billed  int // the invoice's lines
	Won     int // the log's wins compared
	Matched int // bids billed at their win's price
	// Unlogged are the bids billed without a win in the log, in the
	// invoice's order.
	Unlogged []Unlogged
	// Unbilled are the wins the invoice does not bill, by bid time.
	Unbilled []Win
	// PriceMismatches are the bids billed at another price than their
	// win's, to the micro, in the invoice's order.
	PriceMismatches []PriceMismatch
	// Repeated are the lines that bill a bid again (each after its first).
	Repeated []InvoiceLine
	// Duplicates is how many repeated win records the log had (dropped).
	Duplicates int64
}

// Exact reports whether the invoice bills exactly the log's wins, at their
// prices.
func (r *InvoiceReport) Exact() bool {
	return len(r.Unlogged) == 0 && len(r.Unbilled) == 0 && len(r.PriceMismatches) == 0 && len(r.Repeated) == 0
}

// CompareInvoice compares an invoice with the log's wins that f keeps.
func CompareInvoice(inv *Invoice, wins *Wins, f InvoiceFilter) *InvoiceReport {
	r := &InvoiceReport{Filter: f, Billed: len(inv.Lines), Duplicates: wins.Duplicates}
	billed := make(map[bidder.BidID]struct{}, len(inv.Lines))
	for _, l := range inv.Lines {
		if _, again := billed[l.BidID]; again {
			r.Repeated = append(r.Repeated, l)
			continue
		}
		billed[l.BidID] = struct{}{}
		w, ok := wins.byID[l.BidID]
		switch {
		case !ok:
			r.Unlogged = append(r.Unlogged, Unlogged{InvoiceLine: l})
		case !f.keeps(w):
			r.Unlogged = append(r.Unlogged, Unlogged{InvoiceLine: l, Why: f.whyNot(w)})
		case w.Price != l.Price:
			r.PriceMismatches = append(r.PriceMismatches, PriceMismatch{InvoiceLine: l, Win: w})
		default:
			r.Matched++
		}
	}
	for _, w := range wins.byID {
		if !f.keeps(w) {
			continue
		}
		r.Won++
		if _, ok := billed[w.BidID]; !ok {
			r.Unbilled = append(r.Unbilled, w)
		}
	}
	slices.SortFunc(r.Unbilled, func(a, b Win) int {
		if c := a.BidTime.Compare(b.BidTime); c != 0 {
			return c
		}
		return bytes.Compare(a.BidID[:], b.BidID[:])
	})
	return r
}
