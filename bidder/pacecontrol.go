package bidder

import (
	"math"
	"time"
)

// PacingConfig tunes the pacing controllers. The zero value takes the
// defaults below.
type PacingConfig struct {
	// ValueMemory is the time constant of the estimate of what a campaign
	// spends per request it could take part in (win rate times clearing
	// price: slow to change, and noisy, since it comes from wins). Default
	// 2 hours.
	ValueMemory time.Duration
	// TrafficMemory is the time constant of the estimate of how many
	// requests a unit of the day's traffic share brings (from the server's
	// own counts: quick to change, and many). Default 5 minutes.
	TrafficMemory time.Duration
	// Horizon is how soon the controller means to close a gap between the
	// spend and the target: over the traffic share expected in the next
	// Horizon. Default an hour.
	Horizon time.Duration
	// MaxStep bounds one tick's change of the rate: at most ×MaxStep or
	// ÷MaxStep. Default 2.
	MaxStep float64
	// FollowRequests makes the pacing clock the latest request time seen
	// instead of the server clock (-trust-request-ts: a replayed day paces
	// as it did).
	FollowRequests bool
}

// Defaults of PacingConfig.
const (
	DefaultPaceValueMemory   = 2 * time.Hour
	DefaultPaceTrafficMemory = 5 * time.Minute
	DefaultPaceHorizon       = time.Hour
	DefaultPaceMaxStep       = 2.0
	// MinPaceRate is the lowest participation rate: a campaign far ahead
	// of its target still takes part in one request in 10,000, so that the
	// controller keeps seeing what it would spend.
	MinPaceRate = 1e-4
	// PaceTick is the controllers' fixed tick.
	PaceTick = time.Minute
)

func (c PacingConfig) withDefaults() PacingConfig {
	if c.ValueMemory <= 0 {
		c.ValueMemory = DefaultPaceValueMemory
	}
	if c.TrafficMemory <= 0 {
		c.TrafficMemory = DefaultPaceTrafficMemory
	}
	if c.Horizon <= 0 {
		c.Horizon = DefaultPaceHorizon
	}
	if c.MaxStep <= 1 {
		c.MaxStep = DefaultPaceMaxStep
	}
	return c
}

// paceInput is what one tick of a campaign's controller sees.
type paceInput struct {
	tick     int64   // Unix minute
	day      Day     // of the tick
	budget   float64 // the daily budget, CPM micros
	spent    float64 // booked spend of day, CPM micros
	requests float64 // requests counted on day so far
	share    float64 // expected share of day's traffic arrived by the tick
	ahead    float64 // expected share arrived by the tick plus the horizon (at most 1)
}

// next is one tick of the throttling controller: the state after the tick
// at in, from the state after the last one.
//
// What the campaign would spend per unit of the day's traffic share if it
// took part in every request it matches is estimated as the product of two
// ratios: what it spends per request at rate 1 (the spend booked over the
// last ticks over the requests counted times the rate then in force, both
// weighted over ValueMemory), and how many requests a unit of share brings
// (the requests counted over the share the curve expected, weighted over
// TrafficMemory). The second follows a change of traffic within minutes,
// from counts of every request; the first, which wins alone can tell,
// changes slowly and is averaged long. Following the target means spending
// the budget per unit of share; closing a gap (the target's lead over the
// spend, as a share of the budget) over the share the next Horizon brings
// means spending budget·(h+gap)/h per unit of share. The rate is that over
// the estimate, changed by at most ×MaxStep or ÷MaxStep a tick, clamped to
// [MinPaceRate, 1]: at 1 the campaign takes part in everything, and traffic
// cannot fill its budget. Until the first spend there is nothing to
// estimate from and the rate stays where it was (1 for a new campaign). A
// new day keeps the rate and the estimates (tomorrow's traffic is much like
// today's) and starts the day's spend, requests and share at 0.
func (c PacingConfig) next(p Pace, in paceInput) Pace {
	if !(p.Rate > 0 && p.Rate <= 1) { // NaN too
		p.Rate = 1
	}
	if p.Day != in.day || p.Tick == 0 {
		p.Day, p.Spent, p.Requests, p.Share = in.day, 0, 0, 0
	}
	dS := max(in.spent-p.Spent, 0)
	dR := max(in.requests-p.Requests, 0)
	dF := max(in.share-p.Share, 0)
	long := math.Exp(-float64(PaceTick) / float64(c.ValueMemory))
	short := math.Exp(-float64(PaceTick) / float64(c.TrafficMemory))
	p.SpendW = p.SpendW*long + dS
	p.ReqW = p.ReqW*long + p.Rate*dR
	p.ReqS = p.ReqS*short + dR
	p.ShareS = p.ShareS*short + dF
	p.Tick, p.Spent, p.Requests, p.Share = in.tick, in.spent, in.requests, in.share
	if p.SpendW <= 0 || p.ReqW <= 0 || p.ReqS <= 0 || p.ShareS <= 0 || in.budget <= 0 {
		return p
	}
	unthrottled := p.SpendW / p.ReqW * (p.ReqS / p.ShareS) // spend per unit share at rate 1
	gap := (in.budget*in.share - in.spent) / in.budget
	h := max(in.ahead-in.share, 1e-4)
	want := in.budget * (h + gap) / h
	rate := MinPaceRate
	if want > 0 {
		rate = want / unthrottled
	}
	rate = min(max(rate, p.Rate/c.MaxStep), p.Rate*c.MaxStep)
	p.Rate = min(max(rate, MinPaceRate), 1)
	return p
}
