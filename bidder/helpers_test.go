package bidder

import (
	"context"
	"time"

	"github.com/recbid/dspd/internal/countrand"
)

// testNow is the fixed clock of the decision tests: Tuesday 2026-11-03,
// 10:30 UTC.
var testNow = time.Date(2026, 11, 3, 10, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return testNow }

// testHashKey keys the user hash in tests, so that two engines agree.
var testHashKey = HashKey{15: 1}

// newTestEngine returns an engine on a fixed clock with in-memory state and
// predictable bid ids.
func newTestEngine() (*Engine, *MemoryLedger, *MemoryBidStore) {
	ledger := NewMemoryLedger(MemoryLedgerConfig{Clock: fixedClock})
	bids := NewMemoryBidStore(MemoryBidStoreConfig{TTL: time.Minute, MaxBids: 1000, Random: new(countrand.Reader)})
	e := NewEngine(Config{Clock: fixedClock, HashKey: testHashKey, BidTTL: time.Minute}, ledger, bids)
	return e, ledger, bids
}

// camp returns an active, untargeted campaign with one 300x250 creative.
func camp(id string, bid Micros, mods ...func(*Campaign)) *Campaign {
	c := &Campaign{
		ID:          id,
		Advertiser:  "Advertiser " + id,
		ADomain:     []string{id + ".example"},
		Cat:         []string{"IAB1"},
		Active:      true,
		BidCPM:      bid,
		DailyBudget: NoDailyLimit,
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
