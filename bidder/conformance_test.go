package bidder_test

import (
	"testing"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/bidder/statetest"
)

func TestMemoryLedgerConformance(t *testing.T) {
	statetest.Ledger(t, func(*testing.T) bidder.Ledger { return bidder.NewMemoryLedger(bidder.MemoryLedgerConfig{}) })
}

func TestMemoryBidStoreConformance(t *testing.T) {
	statetest.BidStore(t, func(_ *testing.T, ttl time.Duration) bidder.BidStore {
		return bidder.NewMemoryBidStore(bidder.MemoryBidStoreConfig{TTL: ttl, MaxBids: 100_000})
	})
}
