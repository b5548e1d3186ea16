package memory_test

import (
	"testing"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/managed"
	"github.com/recbid/dspd/state/memory"
	"github.com/recbid/dspd/state/statetest"
)

func TestLedgerConformance(t *testing.T) {
	statetest.Ledger(t, func(*testing.T) bidder.Ledger { return memory.NewLedger(memory.LedgerConfig{}) })
}

func TestPacingBookConformance(t *testing.T) {
	statetest.PacingBook(t, func(*testing.T) bidder.Ledger { return memory.NewLedger(memory.LedgerConfig{}) })
}

func TestBidStoreConformance(t *testing.T) {
	statetest.BidStore(t, func(_ *testing.T, ttl time.Duration) bidder.BidStore {
		return memory.NewBidStore(memory.BidStoreConfig{TTL: ttl, MaxBids: 100_000})
	})
}

func TestManagedConformance(t *testing.T) {
	statetest.Managed(t, func(*testing.T) managed.Store { return memory.NewManaged() }, nil)
}
