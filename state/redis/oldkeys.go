package redis

import (
	"context"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// Keys of the scheme before campaign tags (store.go) were tagged by bid id
// and by user: dspd:bid:{<bid id>}, dspd:day:{<campaign>}:<day>,
// dspd:freq:{<user>}:…. This store reads none of them, so a Redis that
// still holds an earlier dspd's books would have its spend, frequency
// counters and live bids unseen. Open looks for them, and dspd warns.

// oldKeysScanned bounds the look: pages of oldKeysPage keys per node.
const (
	oldKeysScanned = 20
	oldKeysPage    = 1000
)

// OldKeys reports whether Redis holds bid records of the earlier key
// scheme, as far as a bounded scan sees (every node of a cluster).
func (s *Store) OldKeys() bool { return s.oldKeys }

// findOldKeys scans for bid records of the earlier scheme.
func (s *Store) findOldKeys(ctx context.Context) bool {
	pattern := s.cfg.Prefix + ":bid:{" + strings.Repeat("?", 32) + "}"
	scan := func(ctx context.Context, c *goredis.Client) bool {
		var cursor uint64
		for range oldKeysScanned {
			keys, next, err := c.Scan(ctx, cursor, pattern, oldKeysPage).Result()
			if err != nil || len(keys) > 0 {
				return len(keys) > 0
			}
			if cursor = next; cursor == 0 {
				return false
			}
		}
		return false
	}
	switch c := s.client.(type) {
	case *goredis.Client:
		return scan(ctx, c)
	case *goredis.ClusterClient:
		found := false
		_ = c.ForEachMaster(ctx, func(ctx context.Context, n *goredis.Client) error {
			if scan(ctx, n) {
				found = true
			}
			return nil
		})
		return found
	}
	return false
}
