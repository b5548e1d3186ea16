package pacingsim

import (
	"container/heap"
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/countrand"
	"github.com/recbid/dspd/state/memory"
)

// PCG streams, so that each campaign's traffic and auctions, and the
// throttle's draws, are independent of one another: a campaign sees the
// same requests and the same auctions whatever the others do, and the
// control run (no pacing, no throttle draws) sees what the paced run saw.
const (
	trafficStream  = 0x74726166 // "traf"
	auctionStream  = 0x61756374 // "auct"
	throttleStream = 0x7468726f // "thro"
)

// sim is one run in progress.
type sim struct {
	cfg     Config
	ctx     context.Context
	nowMs   int64
	engine  *bidder.Engine
	cat     *bidder.Catalog
	camps   []*bidder.Campaign // in cfg.Campaigns order
	budgets []float64          // CPM micros
	traffic []*rand.Rand       // one per campaign
	auction []*rand.Rand       // one per campaign
	notices noticeQueue
	res     *Result
	seq     int
}

func (s *sim) now() time.Time { return time.UnixMilli(s.nowMs).UTC() }

// noPacing hides the memory ledger's pacing book: an engine over it paces
// nothing.
type noPacing struct{ bidder.Ledger }

// Run simulates cfg's days and returns what was measured.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	s := &sim{cfg: cfg, ctx: ctx, nowMs: cfg.Start.UnixMilli()}
	ledger := memory.NewLedger(memory.LedgerConfig{Clock: s.now})
	var books bidder.Ledger = ledger
	if cfg.WithoutPacing {
		books = noPacing{ledger}
	}
	bids := memory.NewBidStore(memory.BidStoreConfig{TTL: 10 * time.Minute, MaxBids: 1 << 20, Random: new(countrand.Reader)})
	throttle := rand.New(rand.NewPCG(cfg.Seed, throttleStream))
	s.engine = bidder.NewEngine(bidder.Config{Clock: s.now, Pacing: cfg.Pacing, Rand: throttle.Uint32}, books, bids)
	price := meanPriceFactor(cfg.PriceMu, cfg.PriceSigma)
	for _, c := range cfg.Campaigns {
		unthrottled := float64(cfg.Requests) * cfg.WinRate * float64(c.BidCPM) * price // CPM micros a day
		budget := bidder.Micros(unthrottled / c.Oversupply / 1000)                     // USD micros
		camp := &bidder.Campaign{ID: c.ID, Advertiser: c.ID, ADomain: []string{c.ID + ".example"}, Cat: []string{"IAB1"},
			Active: true, BidCPM: c.BidCPM, DailyBudget: budget, Pacing: c.Pacing,
			Targeting: bidder.Targeting{Sites: []string{site(c.ID)}},
			Creatives: []bidder.Creative{{ID: c.ID + "-cr", W: 300, H: 250, ImageURL: "https://cdn.example/i",
				ClickURL: "https://" + c.ID + ".example/"}}}
		s.camps = append(s.camps, camp)
		s.budgets = append(s.budgets, float64(budget)*1000)
		key := campaignKey(c.ID)
		s.traffic = append(s.traffic, rand.New(rand.NewPCG(cfg.Seed^key, trafficStream)))
		s.auction = append(s.auction, rand.New(rand.NewPCG(cfg.Seed^key, auctionStream)))
	}
	s.cat = bidder.NewCatalog(slices.Clone(s.camps))
	s.engine.Pace(s.cat)
	s.res = newResult(cfg, s.camps)
	for day := range cfg.Days {
		for m := range 1440 {
			if err := s.minute(day, m); err != nil {
				return nil, err
			}
		}
	}
	s.deliver(math.MaxInt64)
	if err := s.finish(); err != nil {
		return nil, err
	}
	return s.res, nil
}

func site(id string) string { return id + ".news.example" }

// campaignKey is a campaign id's FNV-1a hash: what its random streams are
// seeded by, so that they follow the campaign, not its place in the list.
func campaignKey(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// minute simulates minute m of day: notices due before it, the
// controllers' tick, then its requests in time order (with the notices
// due between them).
func (s *sim) minute(day, m int) error {
	start := s.cfg.Start.UnixMilli() + int64(day)*86_400_000 + int64(m)*60_000
	s.deliver(start)
	s.nowMs = start
	if err := s.engine.TickPacing(s.ctx, s.now()); err != nil {
		return fmt.Errorf("pacing tick at %s: %w", s.now().Format(time.RFC3339), err)
	}
	if err := s.record(day, m); err != nil {
		return err
	}
	type arrival struct {
		ms   int64
		camp int
	}
	var arrivals []arrival
	for i := range s.camps {
		n := poisson(s.traffic[i], s.rate(day, m))
		for range n {
			arrivals = append(arrivals, arrival{start + s.traffic[i].Int64N(60_000), i})
		}
	}
	slices.SortFunc(arrivals, func(a, b arrival) int { return int(a.ms - b.ms) })
	for _, a := range arrivals {
		s.deliver(a.ms)
		s.nowMs = a.ms
		if err := s.request(a.camp); err != nil {
			return err
		}
	}
	return nil
}

// rate is the mean number of requests a campaign gets in minute m of day.
func (s *sim) rate(day, m int) float64 {
	c := s.cfg
	peak := c.PeakAt.Minutes()
	r := float64(c.Requests) / 1440 * (1 + c.Swing*math.Cos(2*math.Pi*(float64(m)-peak)/1440))
	if day+1 == c.StepDay && float64(m) >= c.StepAt.Minutes() {
		r *= c.StepFactor
	}
	return r
}

// trueShare is the share of a day's requests (without a step) that arrive
// before minute t of it: the curve's integral.
func (s *sim) trueShare(t float64) float64 {
	c := s.cfg
	peak := c.PeakAt.Minutes()
	return (t + c.Swing*1440/(2*math.Pi)*(math.Sin(2*math.Pi*(t-peak)/1440)+math.Sin(2*math.Pi*peak/1440))) / 1440
}

// request decides one request to campaign i's site and, for a bid, maybe a
// win whose notice comes later.
func (s *sim) request(i int) error {
	s.seq++
	req := bidder.Request{ID: fmt.Sprintf("r%d", s.seq), ImpID: "1", W: 300, H: 250, Site: site(s.camps[i].ID),
		TimeMs: s.nowMs, Arrived: s.now()}
	d, err := s.engine.Decide(s.ctx, s.cat, &req)
	if err != nil {
		return fmt.Errorf("decide: %w", err)
	}
	if !d.Bid() {
		return nil
	}
	auction := s.auction[i]
	if auction.Float64() >= s.cfg.WinRate {
		return nil // lost the auction: no notice
	}
	factor := 1.0
	for factor >= 1 {
		factor = math.Exp(s.cfg.PriceMu + s.cfg.PriceSigma*auction.NormFloat64())
	}
	price := max(bidder.Micros(float64(d.Price)*factor), 1)
	delay := auction.Int64N(s.cfg.MaxDelay.Milliseconds() + 1)
	heap.Push(&s.notices, notice{ms: s.nowMs + delay, id: d.BidID, price: price})
	return nil
}

// deliver sends the win notices due before ms.
func (s *sim) deliver(ms int64) {
	for s.notices.Len() > 0 && s.notices[0].ms < ms {
		n := heap.Pop(&s.notices).(notice)
		s.nowMs = n.ms
		if _, err := s.engine.Win(s.ctx, n.id, n.price); err != nil {
			s.res.LostNotices++ // expired (none should: notices come within a minute)
		}
	}
}

// meanPriceFactor is E[X | X < 1] for X log-normal with parameters mu,
// sigma: the mean clearing price over the bid.
func meanPriceFactor(mu, sigma float64) float64 {
	phi := func(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
	return math.Exp(mu+sigma*sigma/2) * phi((-mu-sigma*sigma)/sigma) / phi(-mu/sigma)
}

// poisson draws from a Poisson distribution of mean lambda (Knuth's
// method, in steps of at most 500 so that e^-λ stays representable).
func poisson(r *rand.Rand, lambda float64) int {
	n := 0
	for lambda > 0 {
		step := min(lambda, 500)
		lambda -= step
		limit, p := math.Exp(-step), 1.0
		for {
			p *= r.Float64()
			if p <= limit {
				break
			}
			n++
		}
	}
	return n
}

type notice struct {
	ms    int64
	id    bidder.BidID
	price bidder.Micros
}

type noticeQueue []notice

func (q noticeQueue) Len() int           { return len(q) }
func (q noticeQueue) Less(i, j int) bool { return q[i].ms < q[j].ms }
func (q noticeQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *noticeQueue) Push(x any)        { *q = append(*q, x.(notice)) }
func (q *noticeQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}
