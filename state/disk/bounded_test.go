package disk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// TestDiskStaysBounded: under a steady load of bids (a tenth of them
// won, by users of a frequency-capped campaign) on a server clock that
// runs an hour, the sweeps' range deletions keep the directory from
// growing once the first records expire. make test sends 120,000 bids;
// make soak (DSPD_SOAK=1) 5,000,000.
func TestDiskStaysBounded(t *testing.T) {
	total := 120_000
	if os.Getenv("DSPD_SOAK") != "" {
		total = 5_000_000
	}
	const minutes = 60
	perMinute := total / minutes
	var now atomic.Int64
	now.Store(testNow.Unix())
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	dir := t.TempDir()
	cfg := Config{Dir: dir, BidTTL: 10 * time.Minute, BidWindow: time.Millisecond, Clock: clock}
	if total < 1_000_000 {
		cfg.MemTableSize = 1 << 20 // so that a small run flushes often enough to show the bound
	}
	s := open(t, cfg)
	defer s.Close()
	e := bidder.NewEngine(bidder.Config{Clock: clock, HashKey: s.HashKey(), BidTTL: 10 * time.Minute}, s.Ledger(), s.Bids())
	cat := bidder.NewCatalog([]*bidder.Campaign{campaign("capped", 3_000_000, func(c *bidder.Campaign) {
		c.FreqCap = bidder.FreqCap{Impressions: 1_000_000, PeriodS: 3600}
	})})
	sizes := make([]int64, minutes)
	for m := range minutes {
		var wg sync.WaitGroup
		var n atomic.Int64
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < perMinute; i += 8 {
					req := request(fmt.Sprint("u-", i%20_000), 300)
					req.TimeMs = clock().UnixMilli()
					d, err := e.Decide(context.Background(), cat, &req)
					if !assert.NoError(t, err) || !assert.True(t, d.Bid(), d.Reason.String()) {
						return
					}
					if i%10 == 0 {
						_, err = e.Win(context.Background(), d.BidID, 1_000_000)
						assert.NoError(t, err)
					}
					n.Add(1)
				}
			})
		}
		wg.Wait()
		require.Equal(t, int64(perMinute), n.Load())
		now.Add(60)
		e.Sweep(clock())
		sizes[m] = dirSize(t, dir)
	}
	t.Logf("%d bids over %d minutes of server clock (records live 10 minutes); directory size by minute (MB): %v",
		perMinute*minutes, minutes, megabytes(sizes))
	// Growing with the bids, the last 20 minutes would reach 1.5 times the
	// largest size of minutes 10 to 40; bounded, they stay near it.
	assert.LessOrEqual(t, slices.Max(sizes[40:]), slices.Max(sizes[10:40])*5/4, "the directory keeps growing")
	assert.LessOrEqual(t, s.Bids().Len(), 11*perMinute, "memory holds the live records only")
}

func dirSize(t *testing.T, dir string) int64 {
	var n int64
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a file compaction removed while the walk ran
		}
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil {
			n += info.Size()
		}
		return err
	}))
	return n
}

func megabytes(sizes []int64) []float64 {
	out := make([]float64, len(sizes))
	for i, n := range sizes {
		out[i] = float64(n*10/(1<<20)) / 10
	}
	return out
}
