package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/recbid/dspd/bidder"
)

// The pacing book in Redis, shared by the replicas: each adds its request
// counts to a day's hash (prefix:traffic:DAY, field = bucket), and the
// controller states live under prefix:pace:{campaign}, set by one script
// that keeps the later tick, so that of the replicas ticking one minute
// the first sets the state and the others read it. Both expire after
// bidder.PaceTrafficDays days without a write.

var _ bidder.PacingBook = (*Store)(nil)

// pacingTTL is how long the pacing keys live after their last write.
const pacingTTL = bidder.PaceTrafficDays * 24 * time.Hour

func (s *Store) trafficKey(day bidder.Day) string {
	return s.cfg.Prefix + ":traffic:" + strconv.Itoa(int(day))
}

func (s *Store) paceKey(id string) string { return s.cfg.Prefix + ":pace:{" + id + "}" }

// AddTraffic implements bidder.PacingBook: one HINCRBY per non-zero
// bucket, in one round trip.
func (s *Store) AddTraffic(ctx context.Context, day bidder.Day, counts []int64) error {
	key := s.trafficKey(day)
	pipe := s.client.Pipeline()
	for b, n := range counts {
		if n != 0 {
			pipe.HIncrBy(context.Background(), key, strconv.Itoa(b), n)
		}
	}
	if pipe.Len() == 0 {
		return nil
	}
	pipe.Expire(context.Background(), key, pacingTTL)
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("redis: traffic: %w", err)
	}
	return nil
}

// Traffic implements bidder.PacingBook.
func (s *Store) Traffic(ctx context.Context, day bidder.Day) ([]int64, error) {
	var fields map[string]string
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		fields, err = s.client.HGetAll(ctx, s.trafficKey(day)).Result()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("redis: traffic: %w", err)
	}
	if len(fields) == 0 {
		return nil, nil
	}
	counts := make([]int64, bidder.PaceBuckets)
	for f, v := range fields {
		b, err1 := strconv.Atoi(f)
		n, err2 := strconv.ParseInt(v, 10, 64)
		if err1 != nil || err2 != nil || b < 0 || b >= bidder.PaceBuckets {
			return nil, fmt.Errorf("redis: traffic of %s: bad field %q=%q", day, f, v)
		}
		counts[b] = n
	}
	return counts, nil
}

// Paces implements bidder.PacingBook, in one round trip.
func (s *Store) Paces(ctx context.Context, ids []string, out []bidder.Pace) error {
	if len(ids) == 0 {
		return nil
	}
	pipe := s.client.Pipeline()
	cmds := make([]*goredis.StringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.Get(context.Background(), s.paceKey(id))
	}
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := pipe.Exec(ctx)
		if errors.Is(err, goredis.Nil) {
			return nil // some have none
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("redis: pacing: %w", err)
	}
	for i, c := range cmds {
		out[i] = bidder.Pace{}
		v, err := c.Result()
		if errors.Is(err, goredis.Nil) {
			continue
		}
		if err != nil {
			return fmt.Errorf("redis: pacing of %s: %w", ids[i], err)
		}
		if out[i], err = bidder.ParsePace(v); err != nil {
			return fmt.Errorf("redis: pacing of %s: %w", ids[i], err)
		}
	}
	return nil
}

// storePaceScript sets KEYS[1] to ARGV[2] unless it holds a state of a tick
// (its first field) at or after ARGV[1], and returns what it holds after.
var storePaceScript = goredis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then
  local t = tonumber(string.match(v, '^(%-?%d+)'))
  if t and t >= tonumber(ARGV[1]) then return v end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return ARGV[2]
`)

// StorePace implements bidder.PacingBook.
func (s *Store) StorePace(ctx context.Context, id string, p bidder.Pace) (bidder.Pace, error) {
	var held string
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		held, err = storePaceScript.Run(ctx, s.client, []string{s.paceKey(id)}, p.Tick, string(p.AppendText(nil)),
			pacingTTL.Milliseconds()).Text()
		return err
	})
	if err != nil {
		return p, fmt.Errorf("redis: pacing of %s: %w", id, err)
	}
	stored, err := bidder.ParsePace(held)
	if err != nil {
		return p, fmt.Errorf("redis: pacing of %s: %w", id, err)
	}
	return stored, nil
}
