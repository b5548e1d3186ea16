package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/recbid/dspd/managed"
)

// The managed campaign set (package managed) in Redis, shared by the
// replicas. Its keys share one hash tag, so that a commit is one script on
// one node:
//
//	PREFIX:mg:{m}:docs   hash: campaign id → managed.EncodeDoc (tombstones included)
//	PREFIX:mg:{m}:rev    the set's revision; present once the set is managed
//	PREFIX:mg:{m}:audit  stream: one entry per change, id REV-INDEX, field e: the entry's JSON
//	PREFIX:mg:changes    the channel each commit publishes its revision on
//
// The set is as durable as Redis is configured to be (appendfsync).

// ManagedTimeout bounds one operation on the managed set: longer than the
// bidding path's, since a set of thousands of campaigns is megabytes.
const ManagedTimeout = 5 * time.Second

func (s *Store) managedKeys() []string {
	p := s.cfg.Prefix + ":mg:{m}:"
	return []string{p + "docs", p + "rev", p + "audit"}
}

func (s *Store) managedChannel() string { return s.cfg.Prefix + ":mg:changes" }

// managedPool is how many connections the managed set's client holds.
const managedPool = 4

// managerClient is the managed set's client: the bidding path's has
// timeouts of milliseconds, too short for megabytes.
func (s *Store) managerClient() (goredis.UniversalClient, error) {
	s.managerOnce.Do(func() { s.manager, s.managerErr = s.cfg.clientWith(ManagedTimeout, managedPool) })
	return s.manager, s.managerErr
}

// manage runs a managed-set operation on the managed set's client within
// ManagedTimeout. Its failures are the store's failures but never open the
// bidding path's breaker.
func (s *Store) manage(ctx context.Context, op func(ctx context.Context, c goredis.UniversalClient) error) error {
	c, err := s.managerClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, ManagedTimeout)
	defer cancel()
	if err := op(ctx, c); err != nil && !errors.Is(err, goredis.Nil) {
		s.failures.Add(1)
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// LoadManaged implements managed.Store.
func (s *Store) LoadManaged(ctx context.Context) (managed.Snapshot, error) {
	var snap managed.Snapshot
	keys := s.managedKeys()
	err := s.manage(ctx, func(ctx context.Context, c goredis.UniversalClient) error {
		pipe := c.TxPipeline() // one revision and its documents
		revCmd := pipe.Get(ctx, keys[1])
		docsCmd := pipe.HGetAll(ctx, keys[0])
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
			return err
		}
		if rev, err := revCmd.Int64(); err == nil {
			snap.Managed, snap.Rev = true, rev
		} else if !errors.Is(err, goredis.Nil) {
			return err
		}
		for id, v := range docsCmd.Val() {
			d, err := managed.DecodeDoc(id, []byte(v))
			if err != nil {
				return err
			}
			snap.Docs = append(snap.Docs, d)
		}
		return nil
	})
	return snap, err
}

// ManagedRev implements managed.Store.
func (s *Store) ManagedRev(ctx context.Context) (int64, error) {
	var rev int64
	err := s.manage(ctx, func(ctx context.Context, c goredis.UniversalClient) error {
		n, err := c.Get(ctx, s.managedKeys()[1]).Int64()
		rev = n
		return err
	})
	return rev, err
}

// commitScript: KEYS docs, rev, audit. ARGV: the revision the set must be
// at (0: any), seed (1 or 0), the channel, the audit revisions kept, the
// number of changes, then per change its id, its prev version, its
// document and its audit entry. Returns {rev}, or {-1} (managed already),
// {-2} (not at the revision), {-3, index, version held} (a conflict).
var commitScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[2])
local rev = tonumber(cur or '0')
if ARGV[2] == '1' and cur then return {-1} end
if tonumber(ARGV[1]) ~= 0 and tonumber(ARGV[1]) ~= rev then return {-2} end
local n = tonumber(ARGV[5])
for i = 0, n - 1 do
  local doc = redis.call('HGET', KEYS[1], ARGV[6 + i * 4])
  local have = 0
  if doc then have = tonumber(string.match(doc, '^(%d+) ')) end
  if have ~= tonumber(ARGV[7 + i * 4]) then return {-3, i, have} end
end
rev = rev + 1
local r = string.format('%d', rev)
for i = 0, n - 1 do
  redis.call('HSET', KEYS[1], ARGV[6 + i * 4], ARGV[8 + i * 4])
  redis.call('XADD', KEYS[3], r .. '-' .. i, 'e', ARGV[9 + i * 4])
end
redis.call('SET', KEYS[2], r)
local keep = tonumber(ARGV[4])
if rev > keep then redis.call('XTRIM', KEYS[3], 'MINID', string.format('%d', rev - keep + 1) .. '-0') end
redis.call('PUBLISH', ARGV[3], r)
return {rev}
`)

// CommitManaged implements managed.Store: one script, which publishes the
// new revision to the other replicas.
func (s *Store) CommitManaged(ctx context.Context, c managed.Commit) (int64, error) {
	if err := managed.CheckShape(c); err != nil {
		return 0, err
	}
	seed := "0"
	if c.Seed {
		seed = "1"
	}
	args := []any{c.IfRev, seed, s.managedChannel(), managed.MaxAuditRevs, len(c.Changes)}
	for _, ch := range c.Changes {
		line, err := json.Marshal(ch.Audit) // its Rev is the stream id's
		if err != nil {
			return 0, fmt.Errorf("audit entry of %q: %w", ch.Doc.ID, err)
		}
		args = append(args, ch.Doc.ID, ch.Prev, managed.EncodeDoc(ch.Doc), line)
	}
	var res []int64
	err := s.manage(ctx, func(ctx context.Context, c goredis.UniversalClient) error {
		var err error
		res, err = commitScript.Run(ctx, c, s.managedKeys(), args...).Int64Slice()
		return err
	})
	switch {
	case err != nil:
		return 0, err
	case len(res) == 0:
		return 0, errors.New("managed: malformed answer of the commit script")
	case res[0] == -1:
		return 0, managed.ErrManaged
	case res[0] == -2:
		return 0, managed.ErrRevChanged
	case res[0] == -3 && len(res) == 3:
		return 0, &managed.ConflictError{ID: c.Changes[res[1]].Doc.ID, Have: res[2]}
	}
	return res[0], nil
}

// ManagedAudit implements managed.Store: the stream, newest first.
func (s *Store) ManagedAudit(ctx context.Context, campaign string, limit int) ([]managed.AuditEntry, error) {
	var out []managed.AuditEntry
	const page = 1000
	err := s.manage(ctx, func(ctx context.Context, c goredis.UniversalClient) error {
		end := "+"
		for len(out) < limit {
			msgs, err := c.XRevRangeN(ctx, s.managedKeys()[2], end, "-", page).Result()
			if err != nil {
				return err
			}
			for _, m := range msgs {
				var a managed.AuditEntry
				line, _ := m.Values["e"].(string)
				if err := json.Unmarshal([]byte(line), &a); err != nil {
					return fmt.Errorf("audit entry %s: %w", m.ID, err)
				}
				rev, _, _ := strings.Cut(m.ID, "-")
				a.Rev, _ = strconv.ParseInt(rev, 10, 64)
				if (campaign == "" || a.Campaign == campaign) && len(out) < limit {
					out = append(out, a)
				}
			}
			if len(msgs) < page {
				return nil
			}
			end = "(" + msgs[len(msgs)-1].ID
		}
		return nil
	})
	return out, err
}

// WatchManaged implements managed.Notifier: it subscribes to the change
// channel and calls fn with each commit's revision, and with the set's
// revision each time the subscription is (re)established, since notices
// are lost while it is down.
func (s *Store) WatchManaged(ctx context.Context, fn func(rev int64)) {
	c, err := s.managerClient()
	if err != nil {
		return
	}
	sub := c.Subscribe(ctx, s.managedChannel())
	defer sub.Close()
	for {
		msg, err := sub.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		switch m := msg.(type) {
		case *goredis.Subscription: // (re)subscribed: what was missed is in the revision
			if rev, err := s.ManagedRev(ctx); err == nil {
				fn(rev)
			}
		case *goredis.Message:
			if rev, err := strconv.ParseInt(m.Payload, 10, 64); err == nil {
				fn(rev)
			}
		}
		if err != nil {
			select { // go-redis reconnects on the next Receive
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

var (
	_ managed.Store    = (*Store)(nil)
	_ managed.Notifier = (*Store)(nil)
)
