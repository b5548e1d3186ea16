package bidder

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Pacing is how a campaign spends its daily budget over the day.
type Pacing uint8

// The pacing modes of the campaigns file.
const (
	// PacingASAP bids on every request the campaign matches until its daily
	// budget is spent (contract version 1's behaviour, and the default).
	PacingASAP Pacing = iota
	// PacingEven spends the daily budget along the day's traffic: a
	// controller sets the share of its matching requests the campaign takes
	// part in, so that its spend follows the expected share of the day's
	// requests by time of day (see Pacer).
	PacingEven
)

// String returns the mode as the campaigns file spells it.
func (p Pacing) String() string {
	if p == PacingEven {
		return "even"
	}
	return "asap"
}

// Paced reports whether the campaign's bids are throttled by a pacing
// controller: pacing even with a daily budget to pace.
func (c *Campaign) Paced() bool { return c.Pacing == PacingEven && c.Limited() && c.DailyBudget > 0 }

// The traffic curve's buckets: the day in five-minute slots.
const (
	PaceBuckets   = 288
	paceBucketMs  = 86_400_000 / PaceBuckets
	paceBucketMin = 5
)

// Pace is one paced campaign's controller state, as the pacing book keeps
// it between ticks (and shares it between replicas).
type Pace struct {
	// Tick is the Unix minute of the tick that set this state; 0: none yet.
	Tick int64
	// Day is the UTC day the tick fell on; Spent, Requests and Share are of
	// that day.
	Day Day
	// Rate is the participation probability in force, in [MinPaceRate, 1].
	Rate float64
	// At the tick: the campaign's booked spend of Day (CPM micros), the
	// requests the server had counted that day (every replica's, as the
	// book holds them), and the expected share of the day's traffic that
	// had arrived by the curve.
	Spent, Requests, Share float64
	// Exponentially weighted sums over the last ticks, of the spend booked
	// and of the requests counted times the rate then in force (over
	// PacingConfig.ValueMemory: their ratio is what the campaign spends per
	// request it could take part in), and of the requests counted and of
	// the share the curve expected (over PacingConfig.TrafficMemory: their
	// ratio is how many requests a unit of the day's share brings now).
	SpendW, ReqW, ReqS, ShareS float64
}

// PacingBook keeps what pacing learns and decides: the requests the server
// saw by time of day (a traffic curve is learned from them) and each paced
// campaign's controller state. It belongs to the state, so that a restart
// resumes and replicas sharing a state steer as one. Ledgers that implement
// it enable pacing (NewEngine).
type PacingBook interface {
	// AddTraffic adds counts[b] requests to bucket b of the day
	// (len(counts) == PaceBuckets).
	AddTraffic(ctx context.Context, day Day, counts []int64) error
	// Traffic returns the request counts of a day by bucket, or nil when
	// the book holds none.
	Traffic(ctx context.Context, day Day) ([]int64, error)
	// Paces fills out[i] with the stored state of campaign ids[i] (the
	// zero Pace when there is none).
	Paces(ctx context.Context, ids []string, out []Pace) error
	// StorePace stores p for the campaign unless the book holds a state of
	// the same or a later tick, and returns the state it holds afterwards:
	// of all the replicas that tick one minute, one sets the state and the
	// others take it.
	StorePace(ctx context.Context, id string, p Pace) (Pace, error)
}

// PaceStatus is a paced campaign's pacing as of the last tick.
type PaceStatus struct {
	CampaignID string
	Rate       float64 // participation probability
	Target     Micros  // the traffic-shaped target spend by now (CPM micros)
	Spent      Micros  // booked spend of the day (CPM micros)
	Budget     Micros  // the daily budget (CPM micros)
	At         time.Time
}

// AppendText appends p as the text the states store it in: its fields as
// decimal numbers separated by spaces, Tick first ("27997440 20396 0.5 …"),
// each float in the shortest form that reads back exactly.
func (p Pace) AppendText(b []byte) []byte {
	b = strconv.AppendInt(b, p.Tick, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.Day), 10)
	for _, f := range p.floats() {
		b = append(b, ' ')
		b = strconv.AppendFloat(b, *f, 'g', -1, 64)
	}
	return b
}

func (p *Pace) floats() [8]*float64 {
	return [...]*float64{&p.Rate, &p.Spent, &p.Requests, &p.Share, &p.SpendW, &p.ReqW, &p.ReqS, &p.ShareS}
}

// ErrBadPace is the cause of ParsePace's errors.
var ErrBadPace = errors.New("bidder: not a pacing state")

// ParsePace reads what AppendText wrote.
func ParsePace(s string) (Pace, error) {
	var p Pace
	floats := p.floats()
	f := strings.Fields(s)
	if len(f) != 2+len(floats) {
		return Pace{}, fmt.Errorf("%w: %q", ErrBadPace, s)
	}
	var err error
	var day int64
	if p.Tick, err = strconv.ParseInt(f[0], 10, 64); err != nil {
		return Pace{}, fmt.Errorf("%w: %w", ErrBadPace, err)
	}
	if day, err = strconv.ParseInt(f[1], 10, 32); err != nil {
		return Pace{}, fmt.Errorf("%w: %w", ErrBadPace, err)
	}
	p.Day = Day(day)
	for i, dst := range floats {
		if *dst, err = strconv.ParseFloat(f[2+i], 64); err != nil {
			return Pace{}, fmt.Errorf("%w: %w", ErrBadPace, err)
		}
	}
	return p, nil
}
