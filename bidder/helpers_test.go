package bidder

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"time"
)

// testNow is the fixed clock of the decision tests: Tuesday 2026-11-03,
// 10:30 UTC.
var testNow = time.Date(2026, 11, 3, 10, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return testNow }

// sequentialIDs returns bid ids 1, 2, 3, … so that tests can predict them.
func sequentialIDs() func() BidID {
	var n atomic.Uint64
	return func() BidID {
		var id BidID
		binary.BigEndian.PutUint64(id[8:], n.Add(1))
		return id
	}
}

// newTestEngine returns an engine on a fixed clock with in-memory state.
func newTestEngine() (*Engine, *MemoryLedger, *MemoryBidStore) {
	ledger := NewMemoryLedger(MemoryLedgerConfig{Clock: fixedClock})
	bids := NewMemoryBidStore(time.Minute, 1000)
	e := NewEngine(Config{Clock: fixedClock, NewBidID: sequentialIDs()}, ledger, bids)
	return e, ledger, bids
}

// camp returns an active, untargeted campaign with one 300x250 creative.
func camp(id string, bid Micros, mods ...func(*Campaign)) *Campaign {
	c := &Campaign{
		ID:         id,
		Advertiser: "Advertiser " + id,
		ADomain:    []string{id + ".example"},
		Cat:        []string{"IAB1"},
		Active:     true,
		BidCPM:     bid,
		Creatives: []Creative{{ID: id + "-a", W: 300, H: 250,
			ImageURL: "https://cdn.example/" + id + ".jpg", ClickURL: "https://example.com/" + id}},
	}
	for _, m := range mods {
		m(c)
	}
	return c
}

func baseRequest() Request {
	return Request{ID: "req-1", ImpID: "1", W: 300, H: 250, TimeMs: testNow.UnixMilli()}
}

func usd(f float64) Micros { return Micros(f*MicrosPerUnit + 0.5) }

func decide(e *Engine, cat *Catalog, req Request) Decision {
	d, err := e.Decide(context.Background(), cat, &req)
	if err != nil {
		panic(err)
	}
	return d
}
