package reconcile

import (
	"context"

	"github.com/recbid/dspd/bidder"
)

// Ledger is where the books' day counters are read from.
type Ledger interface {
	// DayStats returns the counters the ledger holds for day: at least
	// those of keys (the log's campaigns and exchanges), and every other
	// one it can list. A key it holds nothing for is absent.
	DayStats(ctx context.Context, day bidder.Day, keys []Key) (map[Key]bidder.DayStats, error)
}
