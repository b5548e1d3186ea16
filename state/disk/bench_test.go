package disk

import (
	"context"
	"testing"
	"time"

	"github.com/recbid/dspd/bidder"
)

// BenchmarkSave: a bid record made durable, from 64 goroutines at once
// (group commit shares their fsyncs), on the test's temporary directory.
func BenchmarkSave(b *testing.B) {
	s := open(b, Config{Dir: b.TempDir(), Clock: func() time.Time { return testNow }})
	defer s.Close()
	rec := bidder.BidRecord{CampaignID: "free", CreativeID: "free-cr", Exchange: "adx", Price: 1_000_000, TimeS: testNow.Unix()}
	b.ReportAllocs()
	b.SetParallelism(64)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Bids().Save(context.Background(), rec, testNow); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
