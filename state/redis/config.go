package redis

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Config configures a Store. Zero fields take the defaults.
type Config struct {
	// URL is redis://[user:password@]host:port[/db][?options], or
	// redis-cluster://host:port[?addr=host2:port2&addr=…] for Redis Cluster.
	URL string
	// Prefix starts every key (default "dspd"); tests isolate themselves
	// with their own.
	Prefix string
	// OpTimeout bounds every Redis operation (default 25 ms): a decision
	// makes at most two (counters, bid record), well within a 100 ms tmax.
	OpTimeout time.Duration
	// BreakerAfter is how many operations in a row must fail before the
	// store stops trying (default 5); BreakerPause is how long it then
	// answers "unavailable" at once before trying Redis again (default 1 s).
	BreakerAfter int
	BreakerPause time.Duration
	// SpendStaleness is how old a cached daily spend may be (default
	// 100 ms; negative: no cache).
	SpendStaleness time.Duration
	// BidTTL is how long a bid record waits for its win notice (default 10 m).
	BidTTL time.Duration
	// DayTTL is how long daily counters live after their last write
	// (default 8 days).
	DayTTL time.Duration
	// FlushEvery is how often batched bid counts are written (default 100 ms).
	FlushEvery time.Duration
	// PoolSize is the number of connections per Redis node (default 32).
	PoolSize int
}

// Defaults of Config.
const (
	DefaultOpTimeout      = 25 * time.Millisecond
	DefaultBreakerAfter   = 5
	DefaultBreakerPause   = time.Second
	DefaultSpendStaleness = 100 * time.Millisecond
	DefaultFlushEvery     = 100 * time.Millisecond
	DefaultPoolSize       = 32
)

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = "dspd"
	}
	if c.OpTimeout <= 0 {
		c.OpTimeout = DefaultOpTimeout
	}
	if c.BreakerAfter <= 0 {
		c.BreakerAfter = DefaultBreakerAfter
	}
	if c.BreakerPause <= 0 {
		c.BreakerPause = DefaultBreakerPause
	}
	if c.SpendStaleness == 0 {
		c.SpendStaleness = DefaultSpendStaleness
	}
	if c.BidTTL <= 0 {
		c.BidTTL = 10 * time.Minute
	}
	if c.DayTTL <= 0 {
		c.DayTTL = 8 * 24 * time.Hour
	}
	if c.FlushEvery <= 0 {
		c.FlushEvery = DefaultFlushEvery
	}
	if c.PoolSize <= 0 {
		c.PoolSize = DefaultPoolSize
	}
	return c
}

// client builds the go-redis client the URL names, with the store's
// timeouts and no retries (a retried write could count twice).
func (c Config) client() (goredis.UniversalClient, error) {
	return c.clientWith(c.OpTimeout, c.PoolSize)
}

// clientWith is client with another timeout and pool size: the managed
// campaign set's, whose operations move megabytes (managed.go).
func (c Config) clientWith(timeout time.Duration, pool int) (goredis.UniversalClient, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	switch u.Scheme {
	case "redis", "rediss":
		opt, err := goredis.ParseURL(c.URL)
		if err != nil {
			return nil, fmt.Errorf("redis url: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 10*timeout, timeout, timeout
		opt.PoolTimeout, opt.PoolSize, opt.MaxRetries = timeout, pool, -1
		opt.ContextTimeoutEnabled = true
		return goredis.NewClient(opt), nil
	case "redis-cluster":
		opt, err := goredis.ParseClusterURL("redis://" + strings.TrimPrefix(c.URL, "redis-cluster://"))
		if err != nil {
			return nil, fmt.Errorf("redis cluster url: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 10*timeout, timeout, timeout
		opt.PoolTimeout, opt.PoolSize, opt.MaxRetries = timeout, pool, -1
		opt.ContextTimeoutEnabled = true
		return goredis.NewClusterClient(opt), nil
	}
	return nil, errors.New("redis url: the scheme must be redis://, rediss:// or redis-cluster://")
}
