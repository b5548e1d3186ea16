package reconcile

import (
	"errors"
	"fmt"
	"time"

	"github.com/valyala/fastjson"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
)

// Record is what reconciliation reads of one event record (the schema is
// package events' Record; docs/events.md).
type Record struct {
	// Type is the record's type, 0 for a type this version does not know
	// (a later dspd's), which is counted nowhere.
	Type     events.Type
	Time     time.Time // "time": when it happened (a bid's: its request time)
	Instance string
	BidID    bidder.BidID // zero for a no bid or an audit record
	Exchange string
	Campaign string
	Creative string
	// Price is "price_micros": a bid's price, a win's or a billing
	// notice's clearing price.
	Price   bidder.Micros
	BidTime time.Time // win and billing: "bid_time", the bid's request time
	Test    bool      // bid: a test bid, which books nothing
	Deal    string    // bid, win and billing: the deal the bid was made in ("": the open auction)
}

// ErrRecord is the cause of every record that cannot be read.
var ErrRecord = errors.New("not an event record")

var parsers fastjson.ParserPool

// ParseRecord reads one JSON line of the log. It is strict about what
// reconciliation counts: the version (1), the type, the time, a bid id on
// every record of a bid, a price on bids, wins and billing notices, a
// bid_time on wins and billing notices.
func ParseRecord(line []byte) (Record, error) {
	p := parsers.Get()
	defer parsers.Put(p)
	var r Record
	v, err := p.ParseBytes(line)
	if err != nil {
		return r, fmt.Errorf("%w: %w", ErrRecord, err)
	}
	if v.Type() != fastjson.TypeObject {
		return r, fmt.Errorf("%w: not a JSON object", ErrRecord)
	}
	vf := v.Get("v")
	if vf == nil {
		return r, fmt.Errorf("%w: no schema version \"v\"", ErrRecord)
	}
	if ver, err := vf.Int(); err != nil || ver != events.SchemaVersion {
		return r, fmt.Errorf("%w: schema version %s (this reads version %d)", ErrRecord, vf, events.SchemaVersion)
	}
	name, err := str(v, "type", true)
	if err != nil {
		return r, err
	}
	r.Type, _ = events.ParseType(name)
	if r.Time, err = timeField(v, "time"); err != nil {
		return r, err
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"instance", &r.Instance}, {"exchange", &r.Exchange}, {"campaign", &r.Campaign}, {"creative", &r.Creative},
		{"deal", &r.Deal}} {
		if *f.dst, err = str(v, f.key, false); err != nil {
			return r, err
		}
	}
	if r.Type == 0 || r.Type == events.TypeAudit {
		return r, nil
	}
	id, err := str(v, "bidid", true)
	if err != nil {
		return r, err
	}
	if id != "" || r.Type != events.TypeNoBid {
		var ok bool
		if r.BidID, ok = bidder.ParseBidID(id); !ok {
			return r, fmt.Errorf("%w: bidid %q is not 32 hex digits", ErrRecord, id)
		}
	}
	switch r.Type {
	case events.TypeBid:
		r.Test = v.GetBool("test")
		r.Price, err = micros(v, "price_micros")
	case events.TypeWin, events.TypeBilling:
		if r.Price, err = micros(v, "price_micros"); err == nil {
			r.BidTime, err = timeField(v, "bid_time")
		}
	}
	return r, err
}

// str returns a string field ("" when absent and not required).
func str(v *fastjson.Value, key string, required bool) (string, error) {
	f := v.Get(key)
	if f == nil {
		if required {
			return "", fmt.Errorf("%w: no %q", ErrRecord, key)
		}
		return "", nil
	}
	b, err := f.StringBytes()
	if err != nil {
		return "", fmt.Errorf("%w: %q is not a string", ErrRecord, key)
	}
	return string(b), nil
}

func timeField(v *fastjson.Value, key string) (time.Time, error) {
	s, err := str(v, key, true)
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q is not an RFC 3339 time: %q", ErrRecord, key, s)
	}
	return t, nil
}

func micros(v *fastjson.Value, key string) (bidder.Micros, error) {
	f := v.Get(key)
	if f == nil {
		return 0, fmt.Errorf("%w: no %q", ErrRecord, key)
	}
	n, err := f.Int64()
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %q is not a whole number of micros: %s", ErrRecord, key, f)
	}
	return bidder.Micros(n), nil
}
