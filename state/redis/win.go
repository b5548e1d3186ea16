package redis

import (
	"context"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/clock"
)

// winScript records a win in one step, on the one node that holds all its
// keys (the bid record, the campaign's day counters, the user's frequency
// counter: see the key scheme in store.go): it checks the notice against
// the bid as claimScript does, marks the bid won and, for the first notice
// of a bid that is not a test, adds the win and the price to the day
// (total and for the bid's exchange) and one to the user's frequency
// window. A Redis that fails before it, or during it, has recorded none of
// it; one whose answer is lost after it has recorded all of it, and the
// exchange's retry is a duplicate. 0: unknown or expired; 1: price above
// the bid; {2, duplicate}.
//
// KEYS: bid record, day counters[, frequency counter]. ARGV: price, now
// (Unix ms), the day's TTL (ms), the exchange's win and spend fields (or
// ""), the frequency counter's TTL (ms), the deal's win and spend fields
// (or "").
var winScript = goredis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'p', 'e', 'w', 't')
if not f[1] then return {0} end
if tonumber(ARGV[2]) >= tonumber(f[2]) then return {0} end
if tonumber(ARGV[1]) > tonumber(f[1]) then return {1} end
if f[3] then return {2, 1} end
redis.call('HSET', KEYS[1], 'w', '1')
if f[4] == '1' then return {2, 0} end
redis.call('HINCRBY', KEYS[2], 'w', 1)
redis.call('HINCRBY', KEYS[2], 's', ARGV[1])
if ARGV[4] ~= '' then
  redis.call('HINCRBY', KEYS[2], ARGV[4], 1)
  redis.call('HINCRBY', KEYS[2], ARGV[5], ARGV[1])
end
if ARGV[7] ~= '' then
  redis.call('HINCRBY', KEYS[2], ARGV[7], 1)
  redis.call('HINCRBY', KEYS[2], ARGV[8], ARGV[1])
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if #KEYS > 2 then
  redis.call('INCR', KEYS[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
end
return {2, 0}
`)

var _ bidder.WinRecorder = (*Store)(nil)

// ClaimWin implements bidder.WinRecorder: the claim and the counters of a
// win in one script (winScript), so that a Redis failure can never leave a
// bid claimed with its win uncounted. The script's keys come from the
// record: the one peeked, else one read first.
func (s *Store) ClaimWin(ctx context.Context, id bidder.BidID, price bidder.Micros, now time.Time,
	peeked *bidder.BidRecord, win func(bidder.BidRecord) bidder.Win) (bidder.BidRecord, bidder.ClaimResult, error) {
	if peeked == nil {
		rec, res, err := s.Claim(ctx, id, -1, now) // read only
		if err != nil {
			return rec, res, err
		}
		peeked = &rec
	}
	rec := *peeked         // the script itself finds a duplicate, or an expiry since the read
	if price > rec.Price { // before the duplicate, as every store checks
		return bidder.BidRecord{}, 0, bidder.ErrPriceAboveBid
	}
	w := win(rec)
	keys := []string{s.bidKey(id), s.dayKey(w.CampaignID, w.Day)}
	if !w.User.IsZero() && w.PeriodS > 0 {
		keys = append(keys, s.freqKey(w.User, w.CampaignID, w.PeriodS, w.Window))
	}
	exWins, exSpend := "", ""
	if w.Exchange != "" {
		exWins, exSpend = dayField("w", w.Exchange), dayField("s", w.Exchange)
	}
	dealWins, dealSpend := "", ""
	if w.Deal != "" {
		dealWins, dealSpend = dayField("w", bidder.DealLabel(w.Deal)), dayField("s", bidder.DealLabel(w.Deal))
	}
	var out []any
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		out, err = winScript.Run(ctx, s.client, keys, int64(price), now.UnixMilli(), s.cfg.DayTTL.Milliseconds(),
			exWins, exSpend, clock.Seconds(w.PeriodS).Milliseconds(), dealWins, dealSpend).Slice()
		return err
	})
	if err != nil {
		return rec, 0, fmt.Errorf("redis: %w", err)
	}
	switch code, _ := out[0].(int64); code {
	case 0:
		return bidder.BidRecord{}, 0, bidder.ErrUnknownBid // expired since the read
	case 1:
		return bidder.BidRecord{}, 0, bidder.ErrPriceAboveBid
	}
	if len(out) != 2 {
		return rec, 0, fmt.Errorf("win: unexpected answer %v", out)
	}
	if dup, _ := out[1].(int64); dup == 1 {
		return rec, bidder.Duplicate, nil
	}
	if !rec.Test {
		s.spend.add(w.CampaignID, w.Day, w.Price)
	}
	return rec, bidder.Claimed, nil
}
