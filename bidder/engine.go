package bidder

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/recbid/dspd/internal/clock"
)

// Config tunes the engine. The zero value is usable: every zero field takes
// its default.
type Config struct {
	// SafetyMargin is taken off the exchange's tmax: a decision not made
	// within tmax-SafetyMargin of the request's arrival answers no bid with
	// reason timeout. Default 5ms.
	SafetyMargin time.Duration
	// DefaultTMax applies when a request names no tmax. Default 100ms.
	DefaultTMax time.Duration
	// Clock is the server clock. Default time.Now.
	Clock func() time.Time
	// BidTTL is how long the bid store keeps a record for its win notice
	// (default DefaultBidTTL): a bid's frequency counter is kept at least
	// that long, so that the win finds it.
	BidTTL time.Duration
	// HashKey keys the user hash (see UserKey). It must come from the
	// state, so that users are the same after a restart and across
	// replicas; zero draws one for this engine alone (tests, memory state).
	HashKey HashKey
	// Pacing tunes the pacing controllers of campaigns with pacing even,
	// which run when the ledger is also a PacingBook.
	Pacing PacingConfig
	// Rand draws the 32-bit numbers a paced campaign's participation is
	// decided by, one per decision that reaches it. Default math/rand/v2's
	// Uint32 (a per-thread generator: no lock, no allocation); a seeded
	// source makes a simulation repeatable.
	Rand func() uint32
}

// Defaults of Config.
const (
	DefaultSafetyMargin = 5 * time.Millisecond
	DefaultTMax         = 100 * time.Millisecond
)

func (c Config) withDefaults() Config {
	if c.SafetyMargin <= 0 {
		c.SafetyMargin = DefaultSafetyMargin
	}
	if c.DefaultTMax <= 0 {
		c.DefaultTMax = DefaultTMax
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.BidTTL <= 0 {
		c.BidTTL = DefaultBidTTL
	}
	if c.HashKey == (HashKey{}) {
		c.HashKey = NewHashKey()
	}
	if c.Rand == nil {
		c.Rand = mrand.Uint32
	}
	return c
}

// RandomBidID returns 128 bits from the operating system's secure source,
// for stores whose bid ids are wholly random.
func RandomBidID() BidID {
	var id BidID
	_, _ = rand.Read(id[:]) // never fails since Go 1.24
	return id
}

// Engine makes bid decisions against a Catalog and keeps the books. It is
// safe for concurrent use.
type Engine struct {
	cfg    Config
	ledger Ledger
	bids   BidStore
	pacer  *Pacer // nil: the ledger keeps no PacingBook, and pacing even bids as asap
	tally  *Tally
}

// NewEngine returns an engine over the given state. When the ledger is also
// a PacingBook, campaigns with pacing even are paced (see Pacer; Pace
// attaches a catalog's campaigns, TickPacing runs the controllers).
func NewEngine(cfg Config, ledger Ledger, bids BidStore) *Engine {
	e := &Engine{cfg: cfg.withDefaults(), ledger: ledger, bids: bids, tally: newTally()}
	if book, ok := ledger.(PacingBook); ok {
		e.pacer = newPacer(e.cfg.Pacing, book, ledger, e.cfg.Clock)
	}
	return e
}

// Pace attaches cat's paced campaigns to the pacing controllers, before
// cat serves: each keeps the rate its id had (a new one starts at 1); and
// every campaign to its tally.
func (e *Engine) Pace(cat *Catalog) {
	e.attachTally(cat)
	if e.pacer != nil {
		e.pacer.attach(cat)
	}
}

// TickPacing runs the pacing controllers for the minute of now (see
// Pacer): call it at least once a minute, with PacingNow. A minute already
// ticked does nothing. Errors come from the state and leave the rates as
// they were.
func (e *Engine) TickPacing(ctx context.Context, now time.Time) error {
	if e.pacer == nil {
		return nil
	}
	return e.pacer.tick(ctx, now)
}

// PacingNow returns the pacing clock: the server clock, or, with
// PacingConfig.FollowRequests, the latest request time seen.
func (e *Engine) PacingNow() time.Time {
	if e.pacer == nil {
		return e.cfg.Clock()
	}
	return e.pacer.Now()
}

// PacingStatus returns each paced campaign's rate, target and spend as of
// the last tick; nil without pacing.
func (e *Engine) PacingStatus() []PaceStatus {
	if e.pacer == nil {
		return nil
	}
	return e.pacer.Status()
}

// Now returns the engine's clock reading.
func (e *Engine) Now() time.Time { return e.cfg.Clock() }

// BidTTL returns how long a bid record waits for its win notice.
func (e *Engine) BidTTL() time.Duration { return e.cfg.BidTTL }

// Ledger returns the engine's ledger.
func (e *Engine) Ledger() Ledger { return e.ledger }

// Bids returns the engine's bid store.
func (e *Engine) Bids() BidStore { return e.bids }

// User returns the key the books know a user id by.
func (e *Engine) User(uid string) UserKey { return e.cfg.HashKey.User(uid) }

// Decision is the outcome of one bid request.
type Decision struct {
	Reason   NoBidReason // ReasonNone when a bid was made
	Campaign *Campaign
	Creative *Creative
	Slot     int // the creative's slot in the catalog (see Catalog.EachCreative)
	BidID    BidID
	Price    Micros
	Deal     string // the deal the bid was made in ("": the open auction)
	// Shed is set on a ReasonTimeout decision that was never made: the
	// deadline had passed before it began (the request waited too long in
	// queues), so nothing was looked at.
	Shed bool

	deadline time.Time // the request's decision deadline, for Keep
	user     UserKey   // the request's user, when the winner is frequency-capped
}

// Bid reports whether the decision is a bid.
func (d *Decision) Bid() bool { return d.Reason == ReasonNone }

// usageChunk is how many candidates' counters are asked for at once.
const usageChunk = 16

// ErrNotABid is returned by Keep for a decision that is not a bid.
var ErrNotABid = errors.New("bidder: only a bid can be kept")

// Decide runs the decision stages of the contract for one request and, on
// a bid, keeps its record. Errors come only from the state stores and are
// returned beside the decision: campaigns whose counters cannot be read drop
// out (ReasonStateUnavailable when nothing else bids), while campaigns that
// need no counters may still bid; a bid whose record cannot be kept is not
// made.
//
// Decide is Choose then Keep, with the deadline checked once, when the
// winner is known.
func (e *Engine) Decide(ctx context.Context, cat *Catalog, req *Request) (Decision, error) {
	d, now, err := e.choose(ctx, cat, req)
	if !d.Bid() {
		return d, err
	}
	return d, errors.Join(err, e.keep(ctx, req, &d, now))
}

// Choose runs the decision stages like Decide but keeps nothing: a bid
// decision has no BidID and leaves no record until Keep saves it. Errors are
// as Decide's, beside the decision. A transport that weighs several
// decisions for one impression (an OpenRTB banner offering several sizes)
// chooses among them and keeps only the one it answers with, so that the
// others leave no trace in the books.
func (e *Engine) Choose(ctx context.Context, cat *Catalog, req *Request) (Decision, error) {
	d, _, err := e.choose(ctx, cat, req)
	return d, err
}

// Keep saves the record of a bid decision that Choose made for req (the
// same request, or one that differs only in size) and sets its BidID,
// counting the bid as Decide does. It checks the decision deadline again
// first, since time has passed since Choose: past it, d becomes a no bid
// with ReasonTimeout and nothing is kept. When a state store fails, d
// becomes a no bid with ReasonStateUnavailable (ReasonCapacity when it is
// full) and the error is returned.
// Keep must be called at most once per decision.
func (e *Engine) Keep(ctx context.Context, req *Request, d *Decision) error {
	if !d.Bid() || d.Campaign == nil || d.Creative == nil {
		return ErrNotABid
	}
	now := e.cfg.Clock()
	if !now.Before(d.deadline) {
		*d = Decision{Reason: ReasonTimeout}
		return nil
	}
	return e.keep(ctx, req, d, now)
}

// choose is Choose, also returning for a bid the clock reading at which its
// deadline was last checked.
func (e *Engine) choose(ctx context.Context, cat *Catalog, req *Request) (Decision, time.Time, error) {
	var never time.Time
	arrived := req.Arrived
	if arrived.IsZero() {
		arrived = e.cfg.Clock()
	}
	tmax := req.TMax
	if tmax <= 0 {
		tmax = e.cfg.DefaultTMax
	}
	deadline := arrived.Add(tmax - e.cfg.SafetyMargin)
	// A request whose deadline passed while it waited is shed before it
	// is counted as traffic for pacing: the pacer's estimate is of the
	// requests the engine can bid on.
	if !e.cfg.Clock().Before(deadline) {
		return Decision{Reason: ReasonTimeout, Shed: true}, never, nil
	}
	if e.pacer != nil {
		e.pacer.count(req.TimeMs)
	}

	if req.Cur != "" && !equalFoldASCII(req.Cur, "USD") {
		return Decision{Reason: ReasonCurrency}, never, nil
	}
	s := cat.scratch.Get().(*scratch)
	defer cat.scratch.Put(s)
	if !cat.prepare(req, s) {
		return Decision{Reason: ReasonNoMatch}, never, nil
	}
	// Campaigns are numbered by descending bid, so those that clear the
	// floor are exactly the numbers below a bound.
	limit := uint32(cat.aboveFloor(req.Floor))
	reason := ReasonNoMatch // the furthest stage reached so far
	var stateErr error      // a state store failure, reported beside the decision
	n := uint32(cat.Len())
	for lo, size := uint32(0), uint32(firstBlock); lo < n; lo, size = lo+size, min(2*size, maxBlock) {
		if lo >= limit && reason != ReasonNoMatch {
			break // only campaigns below the floor are left: the reason stands
		}
		cat.matchBlock(req, s, min(lo+size, n))
		if len(s.cands) == 0 {
			continue
		}
		reason = max(reason, ReasonBelowFloor)
		kept := s.cands[:0]
		for _, c := range s.cands {
			if c < limit {
				kept = append(kept, c)
			}
		}
		s.cands = kept
		if len(s.cands) == 0 {
			continue
		}
		// Before the state is read, the deadline again, unless this is the
		// first block: only CPU work (prepare, one small block's match)
		// separates it from the check above.
		if lo > 0 && !e.cfg.Clock().Before(deadline) {
			return Decision{Reason: ReasonTimeout}, never, nil
		}
		winner, r, user, err := e.applyCaps(ctx, cat, req, s)
		stateErr = errors.Join(stateErr, err)
		if winner >= 0 {
			now := e.cfg.Clock()
			if !now.Before(deadline) {
				return Decision{Reason: ReasonTimeout}, never, stateErr
			}
			c := cat.campaigns[winner]
			ci := creativeFor(c, req, cat.creativeBase[winner])
			price := c.BidCPM
			if req.FixedPrice > 0 { // a fixed-price deal: its price, which the campaign's bid clears
				price = req.FixedPrice
			}
			return Decision{
				Campaign: c,
				Creative: &c.Creatives[ci],
				Slot:     cat.creativeBase[winner] + ci,
				Price:    price,
				Deal:     req.Deal,
				deadline: deadline,
				user:     user,
			}, now, stateErr
		}
		reason = max(reason, r)
	}
	return Decision{Reason: reason}, never, stateErr
}

// applyCaps walks the candidates in priority order through the frequency,
// budget and pacing stages and returns the first that passes them all, or
// -1 and the furthest stage at which candidates dropped out; with the winner, the request's
// user key when the winner is frequency-capped. Counters are read in chunks
// of consecutive candidates, so a remote ledger answers in one round trip.
// When the ledger fails, the candidates it could not answer for drop out
// with ReasonStateUnavailable and the error is returned beside the outcome.
// The bids the request already holds (Request.Held) count as wins at their
// bid price.
func (e *Engine) applyCaps(ctx context.Context, cat *Catalog, req *Request, s *scratch) (int, NoBidReason, UserKey, error) {
	// The best candidate usually wins: look at it alone first, and sort the
	// others only when it drops out.
	best := 0
	for i, n := range s.cands {
		if n < s.cands[best] {
			best = i
		}
	}
	s.cands[0], s.cands[best] = s.cands[best], s.cands[0]
	day := DayOf(req.TimeMs)
	var user UserKey // hashed once, when a capped candidate first needs it
	reason := ReasonFreqCap
	var stateErr error
	for i := 0; i < len(s.cands); {
		end := len(s.cands)
		if i == 0 {
			end = 1
		} else if i == 1 {
			slices.Sort(s.cands[1:])
		}
		s.usage, s.order = s.usage[:0], s.order[:0]
		free := -1 // a candidate with no cap to check, after those queried
		for ; i < end && len(s.usage) < usageChunk; i++ {
			n := int(s.cands[i])
			c := cat.campaigns[n]
			capped := c.FreqCap.Capped()
			if capped && req.NoUser {
				reason = max(reason, ReasonConsent) // may not count the user: cannot keep its cap
				c.tally.drop(req.TimeMs, ReasonConsent)
				continue
			}
			if capped && req.UID == "" {
				c.tally.drop(req.TimeMs, ReasonFreqCap)
				continue // no user to count: drops at the frequency stage
			}
			if c.DailyBudget == 0 && !capped {
				reason = max(reason, ReasonBudget) // a zero budget never bids
				c.tally.drop(req.TimeMs, ReasonBudget)
				continue
			}
			if !capped && !c.Limited() {
				free = n
				i++
				break
			}
			q := UsageQuery{CampaignID: c.ID, Day: day}
			if capped {
				if user.IsZero() {
					user = e.User(req.UID)
				}
				q.User, q.PeriodS, q.Window = user, c.FreqCap.PeriodS, c.FreqCap.Window(req.TimeMs)
			}
			s.usage = append(s.usage, q)
			s.order = append(s.order, n)
		}
		if len(s.usage) > 0 {
			if err := e.ledger.Usage(ctx, s.usage); err != nil {
				// These candidates' counters cannot be read: they drop out,
				// and candidates with nothing to check may still bid.
				stateErr = fmt.Errorf("read counters: %w", err)
				reason = ReasonStateUnavailable
				for _, n := range s.order {
					cat.campaigns[n].tally.drop(req.TimeMs, ReasonStateUnavailable)
				}
				s.usage, s.order = s.usage[:0], s.order[:0]
			}
		}
		for j := range s.usage {
			q, c := &s.usage[j], cat.campaigns[s.order[j]]
			heldBids, heldSpend := req.held(c)
			if c.FreqCap.Capped() && q.Wins+heldBids >= c.FreqCap.Impressions {
				c.tally.drop(req.TimeMs, ReasonFreqCap)
				continue
			}
			if c.Limited() && q.Spent+heldSpend+c.BidCPM > c.DailyBudget*1000 {
				reason = max(reason, ReasonBudget)
				c.tally.drop(req.TimeMs, ReasonBudget)
				continue
			}
			if p := c.pace; p != nil && !p.admit(e.cfg.Rand()) {
				reason = max(reason, ReasonPacing) // held back by its controller
				c.tally.drop(req.TimeMs, ReasonPacing)
				continue
			}
			if !c.FreqCap.Capped() {
				return s.order[j], ReasonNone, UserKey{}, stateErr
			}
			return s.order[j], ReasonNone, user, stateErr
		}
		if free >= 0 {
			return free, ReasonNone, UserKey{}, stateErr
		}
	}
	return -1, reason, UserKey{}, stateErr
}

// keep makes room for the counters a bid's win will write and counts the
// bid (Ledger.Reserve), saves its record at now, and sets d's BidID. When a
// state store fails or is full, d becomes a no bid (ReasonStateUnavailable
// or ReasonCapacity) and the error is returned; nothing stays counted.
func (e *Engine) keep(ctx context.Context, req *Request, d *Decision, now time.Time) error {
	c := d.Campaign
	rec := BidRecord{
		CampaignID: c.ID,
		CreativeID: d.Creative.ID,
		Exchange:   req.Exchange,
		Deal:       req.Deal,
		Pricing:    req.Pricing,
		TimeS:      floorDiv(req.TimeMs, 1000),
		Price:      d.Price,
		Test:       req.Test,
	}
	if c.FreqCap.Capped() {
		rec.User, rec.PeriodS = d.user, c.FreqCap.PeriodS
	}
	// A test bid's win records nothing: it needs no room, and is not
	// counted.
	room := Room{CampaignID: c.ID, Exchange: req.Exchange, Deal: req.Deal, Day: DayOf(req.TimeMs)}
	if !req.Test {
		if !rec.User.IsZero() {
			room.User, room.PeriodS, room.Window = rec.User, rec.PeriodS, c.FreqCap.Window(req.TimeMs)
			room.Until = e.counterUntil(now, req.TimeMs, room.PeriodS, room.Window)
		}
		if err := e.ledger.Reserve(ctx, room); err != nil {
			return refuse(d, fmt.Errorf("reserve counters: %w", err))
		}
	}
	id, err := e.bids.Save(ctx, rec, now)
	if err != nil {
		if !req.Test {
			err = errors.Join(err, e.ledger.UncountBid(ctx, room))
		}
		return refuse(d, fmt.Errorf("save bid: %w", err))
	}
	if !req.Test {
		c.tally.bid(req.TimeMs)
	}
	d.BidID = id
	return nil
}

// counterUntil is how long a bid's frequency counter must live, on the
// server clock: to the end of its window, as far ahead of now as the window
// ends after the request time (the same instant, unless requests carry
// their own time), and never before the bid's record expires (plus a second
// for the store's rounding to whole seconds).
func (e *Engine) counterUntil(now time.Time, requestMs, periodS, window int64) time.Time {
	left := clock.Milliseconds((window+1)*periodS*1000 - requestMs)
	return now.Add(max(left, e.cfg.BidTTL+time.Second))
}

// refuse turns d into the no bid a failed keep gives, and returns err.
func refuse(d *Decision, err error) error {
	r := ReasonStateUnavailable
	if errors.Is(err, ErrCapacity) {
		r = ReasonCapacity
	}
	*d = Decision{Reason: r}
	return err
}
