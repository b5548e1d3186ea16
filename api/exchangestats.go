package api

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
)

// What the console's exchanges page shows: each exchange's traffic of
// the day, from the Prometheus counters this dspd keeps since its start
// less their values at the day's first tick (TickDay).

// ExchangeDay is one exchange's traffic on this dspd, for one day.
type ExchangeDay struct {
	ID                  string
	Requests            int64 // bid requests answered (form and OpenRTB): bids, no bids and rejections
	Bids, NoBids        int64
	Rejected            int64            // 4xx, refusals included
	Refused             map[string]int64 // 403 by the exchange's rules, by cause (source, token)
	Wins, Duplicates    int64            // win notices recorded, and repeated
	SpendMicros         int64            // CPM micros, as the books count spend
	NoBidReasons        map[string]int64
	Pricing, PriceMacro string
	Open                bool // anyone may ask it for bids (no allow list, no token)
}

// dayBase holds the counters' values at the start of the day counted.
type dayBase struct {
	mu    sync.Mutex
	day   bidder.Day
	since time.Time
	base  map[string]ExchangeDay
}

// TickDay starts a new day's counts when the server clock's day changed
// since the last call: call it every second or so (dspd does).
func (s *Server) TickDay() {
	now := s.engine.Now()
	d := bidder.DayOfTime(now)
	s.today.mu.Lock()
	defer s.today.mu.Unlock()
	if s.today.base != nil && s.today.day == d {
		return
	}
	base := map[string]ExchangeDay{}
	if s.today.base != nil { // the first day counts from the start, at zero
		for _, e := range s.readExchanges() {
			base[e.ID] = e
		}
	}
	s.today.day, s.today.since, s.today.base = d, now, base
}

// ExchangeStats returns each serving exchange's counts since the start of
// the day (or of this dspd, when it started that day: since).
func (s *Server) ExchangeStats() (day bidder.Day, since time.Time, out []ExchangeDay) {
	s.TickDay()
	s.today.mu.Lock()
	day, since, base := s.today.day, s.today.since, s.today.base
	s.today.mu.Unlock()
	for _, e := range s.readExchanges() {
		b := base[e.ID]
		e.Requests -= b.Requests
		e.Bids -= b.Bids
		e.NoBids -= b.NoBids
		e.Rejected -= b.Rejected
		e.Wins -= b.Wins
		e.Duplicates -= b.Duplicates
		e.SpendMicros -= b.SpendMicros
		for k := range e.Refused {
			e.Refused[k] -= b.Refused[k]
		}
		for k := range e.NoBidReasons {
			e.NoBidReasons[k] -= b.NoBidReasons[k]
		}
		out = append(out, e)
	}
	return day, since, out
}

// readExchanges reads the counters of the serving exchanges.
func (s *Server) readExchanges() []ExchangeDay {
	set := s.Exchanges()
	if set == nil {
		return nil
	}
	var out []ExchangeDay
	for _, ex := range set.All() {
		m := s.metrics.exchange(ex.ID)
		e := ExchangeDay{ID: ex.ID, Refused: map[string]int64{}, NoBidReasons: map[string]int64{},
			PriceMacro: ex.PriceMacro, Open: ex.Open(), Pricing: "clear"}
		if ex.Pricing != nil && ex.Pricing.Encoding() == exchange.HMACSHA1 {
			e.Pricing = "encrypted (hmac-sha1)"
		}
		for _, o := range []outcomes{m.recbid, m.openrtb} {
			bid, nobid, rej := count(o.bid), count(o.nobid), count(o.rejected)
			e.Bids += bid
			e.NoBids += nobid
			e.Rejected += rej
			e.Requests += bid + nobid + rej
		}
		for _, r := range []exchange.Refusal{exchange.RefusedSource, exchange.RefusedToken} {
			e.Refused[r.String()] = count(m.refused[r])
		}
		for _, r := range bidder.NoBidReasons() {
			if n := count(m.reasons[r]); n > 0 {
				e.NoBidReasons[r.String()] = n
			}
		}
		e.Wins, e.Duplicates, e.SpendMicros = count(m.winRecorded), count(m.winDuplicate), count(m.spend)
		out = append(out, e)
	}
	return out
}

// count reads a counter's value.
func count(c prometheus.Counter) int64 {
	var m dto.Metric
	if c == nil || c.Write(&m) != nil || m.Counter == nil {
		return 0
	}
	return int64(m.Counter.GetValue())
}
