package bidder_test

import (
	"context"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/countrand"
	"github.com/recbid/dspd/state/memory"
)

// testNow is the fixed clock of the decision tests: Tuesday 2026-11-03,
// 10:30 UTC.
var testNow = time.Date(2026, 11, 3, 10, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return testNow }

// testHashKey keys the user hash in tests, so that two engines agree.
var testHashKey = bidder.HashKey{15: 1}

// newTestEngine returns an engine on a fixed clock with in-memory state and
// predictable bid ids.
func newTestEngine() (*bidder.Engine, *memory.Ledger, *memory.BidStore) {
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: fixedClock})
	bids := newBidStore(time.Minute, 1000)
	e := bidder.NewEngine(bidder.Config{Clock: fixedClock, HashKey: testHashKey, BidTTL: time.Minute}, ledger, bids)
	return e, ledger, bids
}

// newBidStore is a store of maxBids records of ttl with predictable ids.
func newBidStore(ttl time.Duration, maxBids int) *memory.BidStore {
	return memory.NewBidStore(memory.BidStoreConfig{TTL: ttl, MaxBids: maxBids, Random: new(countrand.Reader)})
}

// camp returns an active, untargeted campaign with one 300x250 creative.
func camp(id string, bid bidder.Micros, mods ...func(*bidder.Campaign)) *bidder.Campaign {
	c := &bidder.Campaign{
		ID:          id,
		Advertiser:  "Advertiser " + id,
		ADomain:     []string{id + ".example"},
		Cat:         []string{"IAB1"},
		Active:      true,
		BidCPM:      bid,
		DailyBudget: bidder.NoDailyLimit,
		Creatives: []bidder.Creative{{ID: id + "-a", W: 300, H: 250,
			ImageURL: "https://cdn.example/" + id + ".jpg", ClickURL: "https://example.com/" + id}},
	}
	for _, m := range mods {
		m(c)
	}
	return c
}

func baseRequest() bidder.Request {
	return bidder.Request{ID: "req-1", ImpID: "1", W: 300, H: 250, TimeMs: testNow.UnixMilli()}
}

func usd(f float64) bidder.Micros { return bidder.Micros(f*bidder.MicrosPerUnit + 0.5) }

func decide(e *bidder.Engine, cat *bidder.Catalog, req bidder.Request) bidder.Decision {
	d, err := e.Decide(context.Background(), cat, &req)
	if err != nil {
		panic(err)
	}
	return d
}
