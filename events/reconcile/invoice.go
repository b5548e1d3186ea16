package reconcile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/recbid/dspd/bidder"
)

// InvoiceLine is one bid an invoice bills.
type InvoiceLine struct {
	Line  int // in the file, from 1
	BidID bidder.BidID
	Price bidder.Micros // the clearing price (CPM)
}

// Invoice is an exchange's invoice: the bids it bills, in its order.
type Invoice struct {
	Lines []InvoiceLine
}

// ErrInvoice is the cause of every invoice that cannot be read.
var ErrInvoice = errors.New("malformed invoice")

// ReadInvoice reads an invoice in CSV: two columns, the bid id (32 hex
// digits) and the clearing price (CPM) as a decimal in the currency unit
// (1.25), or in micros (1250000) under a header "bidid,price_micros". The
// header row, "bidid,price" or "bidid,price_micros", may be left out
// (then prices are decimals). Anything else (a third column, a price with
// more than six decimals, a sign, spaces) is an error naming its line.
func ReadInvoice(r io.Reader) (*Invoice, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.ReuseRecord = true
	inv := &Invoice{}
	inMicros := false
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return inv, nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("%w: line %d: %w", ErrInvoice, perr.StartLine, perr.Err)
		}
		if err != nil {
			return nil, fmt.Errorf("reconcile: invoice: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if first {
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff") // a byte order mark
			if strings.EqualFold(rec[0], "bidid") {
				switch strings.ToLower(rec[1]) {
				case "price":
				case "price_micros":
					inMicros = true
				default:
					return nil, fmt.Errorf("%w: line %d: header %q: the second column is price or price_micros", ErrInvoice, line, rec[1])
				}
				continue
			}
		}
		id, ok := bidder.ParseBidID(rec[0])
		if !ok {
			return nil, fmt.Errorf("%w: line %d: bid id %q is not 32 hex digits", ErrInvoice, line, rec[0])
		}
		price, err := parsePrice(rec[1], inMicros)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: price %q: %w", ErrInvoice, line, rec[1], err)
		}
		inv.Lines = append(inv.Lines, InvoiceLine{Line: line, BidID: id, Price: price})
	}
}

// parsePrice reads a price exactly: a decimal in the currency unit, or
// whole micros.
func parsePrice(s string, inMicros bool) (bidder.Micros, error) {
	if !inMicros {
		return bidder.ParseMicros(s)
	}
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%w: not a whole number of micros", bidder.ErrDecimal)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || bidder.Micros(n) > bidder.MaxDecimalMicros {
		return 0, fmt.Errorf("%w: too large", bidder.ErrDecimal)
	}
	return bidder.Micros(n), nil
}
