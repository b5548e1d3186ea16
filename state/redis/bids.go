package redis

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/recbid/dspd/bidder"
)

// saveScript creates a bid record unless its key exists, with an absolute
// expiry, in one step.
var saveScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'c', ARGV[1], 'r', ARGV[2], 'u', ARGV[3], 't', ARGV[4], 'p', ARGV[5], 'x', ARGV[6], 'd', ARGV[7], 'e', ARGV[8], 'g', ARGV[9], 'k', ARGV[10])
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'l', ARGV[11]) end
redis.call('PEXPIREAT', KEYS[1], ARGV[8])
return 1
`)

// claimScript checks a win notice against its bid and marks the bid won,
// in one step: 0 unknown or expired, 1 price above the bid, else
// {2, duplicate, campaign, creative, uid, time, price, test, period,
// exchange, pricing, deal}. With a negative price it only reads (Peek).
var claimScript = goredis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'p', 'e', 'w', 'c', 'r', 'u', 't', 'x', 'd', 'g', 'k', 'l')
if not f[1] then return {0} end
if tonumber(ARGV[2]) >= tonumber(f[2]) then return {0} end
if tonumber(ARGV[1]) > tonumber(f[1]) then return {1} end
local dup = 0
if f[3] then dup = 1 elseif tonumber(ARGV[1]) >= 0 then redis.call('HSET', KEYS[1], 'w', '1') end
return {2, dup, f[4], f[5], f[6], f[7], f[1], f[8], f[9], f[10] or '', f[11] or '', f[12] or ''}
`)

// Save implements bidder.BidStore: the record under a random id, created
// only if the id is new (another is drawn if not), expiring at now+ttl.
func (s *Store) Save(ctx context.Context, rec bidder.BidRecord, now time.Time) (bidder.BidID, error) {
	expires := now.Add(s.cfg.BidTTL).UnixMilli()
	test := "0"
	if rec.Test {
		test = "1"
	}
	user := ""
	if !rec.User.IsZero() {
		user = rec.User.String()
	}
	for range 4 { // a repeat of 128 random bits is all but impossible
		id := withTag(bidder.RandomBidID(), tagOf(rec.CampaignID)) // the record's node is its campaign's
		var created int64
		err := s.call(ctx, func(ctx context.Context) error {
			var err error
			created, err = saveScript.Run(ctx, s.client, []string{s.bidKey(id)},
				rec.CampaignID, rec.CreativeID, user, rec.TimeS, int64(rec.Price), test, rec.PeriodS, expires,
				rec.Exchange, rec.Pricing, rec.Deal).Int64()
			return err
		})
		if err != nil {
			return bidder.BidID{}, fmt.Errorf("redis: %w", err)
		}
		if created == 1 {
			s.saved.add(now)
			return id, nil
		}
	}
	return bidder.BidID{}, errors.New("redis: no new bid id in 4 draws")
}

// Peek implements bidder.BidStore: the claim script, reading only.
func (s *Store) Peek(ctx context.Context, id bidder.BidID, now time.Time) (bidder.BidRecord, error) {
	rec, _, err := s.Claim(ctx, id, -1, now)
	return rec, err
}

// Claim implements bidder.BidStore.
func (s *Store) Claim(ctx context.Context, id bidder.BidID, price bidder.Micros, now time.Time) (bidder.BidRecord, bidder.ClaimResult, error) {
	var out []any
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		out, err = claimScript.Run(ctx, s.client, []string{s.bidKey(id)}, int64(price), now.UnixMilli()).Slice()
		return err
	})
	if err != nil {
		return bidder.BidRecord{}, 0, fmt.Errorf("redis: %w", err)
	}
	switch code, _ := out[0].(int64); code {
	case 0:
		return bidder.BidRecord{}, 0, bidder.ErrUnknownBid
	case 1:
		return bidder.BidRecord{}, 0, bidder.ErrPriceAboveBid
	}
	if len(out) != 12 {
		return bidder.BidRecord{}, 0, fmt.Errorf("claim bid: unexpected answer %v", out)
	}
	str := func(v any) string { x, _ := v.(string); return x }
	num := func(v any) int64 { n, _ := strconv.ParseInt(str(v), 10, 64); return n }
	var user bidder.UserKey
	if u := str(out[4]); u != "" {
		if n, err := hex.Decode(user[:], []byte(u)); err != nil || n != len(user) {
			return bidder.BidRecord{}, 0, fmt.Errorf("claim bid: bad user %q", u)
		}
	}
	rec := bidder.BidRecord{ID: id, CampaignID: str(out[2]), CreativeID: str(out[3]), Exchange: str(out[9]),
		Pricing: str(out[10]), Deal: str(out[11]), User: user, TimeS: num(out[5]), Price: bidder.Micros(num(out[6])),
		Test: str(out[7]) == "1", PeriodS: num(out[8])}
	res := bidder.Claimed
	if dup, _ := out[1].(int64); dup == 1 {
		res = bidder.Duplicate
	}
	return rec, res, nil
}

// Len implements bidder.BidStore: the records this replica saved that are
// still within their time to live (Redis is shared: other replicas' records
// are theirs to count).
func (s *Store) Len() int { return s.saved.count(time.Now()) }
