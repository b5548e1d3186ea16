package redis

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/redistest"
)

// redisServer is a redis-server of the test's own (package redistest).
type redisServer = redistest.Server

// target is a Redis the tests run against: one server or a cluster.
type target interface{ URL() string }

// targets are the Redis deployments every shared-state test runs on: one
// redis-server, and a Redis Cluster of three masters.
func targets(t *testing.T) map[string]func(t *testing.T) target {
	return map[string]func(t *testing.T) target{
		"server":  func(t *testing.T) target { return startRedis(t) },
		"cluster": func(t *testing.T) target { return startCluster(t) },
	}
}

var (
	needRedis = redistest.Need
	freePort  = redistest.FreePort
)

// startRedis starts redis-server.
func startRedis(t *testing.T) *redisServer { return redistest.New(t) }

// openOn returns a Store on tg with keys of its own.
func openOn(t *testing.T, tg target, cfg Config) *Store {
	t.Helper()
	cfg.URL = tg.URL()
	if cfg.Prefix == "" {
		cfg.Prefix = "t" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	s, err := Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
