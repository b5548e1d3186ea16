package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/bidder"
)

// config is everything dspd can be told on its command line, with defaults
// that make `dspd` alone serve testdata's campaigns on :9090.
type config struct {
	addr, admin  string
	campaigns    string
	seat         string
	publicURL    string
	safetyMargin time.Duration
	bidTTL       time.Duration
	maxBids      int
	maxFreq      int
	state        string
	drainTimeout time.Duration
	sweepEvery   time.Duration
	logFormat    string
	logLevel     string
	timeouts     timeouts
}

// timeouts of the HTTP listeners; see docs/operations.md.
type timeouts struct {
	readHeader, read, write, idle time.Duration
	maxHeaderBytes                int
}

func defaultConfig() config {
	return config{
		addr:         ":9090",
		admin:        "127.0.0.1:6060",
		campaigns:    "testdata/campaigns.json",
		seat:         api.DefaultSeat,
		safetyMargin: bidder.DefaultSafetyMargin,
		bidTTL:       bidder.DefaultBidTTL,
		maxBids:      bidder.DefaultMaxBids,
		maxFreq:      bidder.DefaultMaxFreqCounters,
		state:        "memory",
		drainTimeout: 15 * time.Second,
		sweepEvery:   time.Minute,
		logFormat:    "text",
		logLevel:     "info",
		timeouts: timeouts{
			readHeader:     2 * time.Second,
			read:           5 * time.Second,
			write:          5 * time.Second,
			idle:           60 * time.Second,
			maxHeaderBytes: 16 << 10,
		},
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	c := defaultConfig()
	fs := flag.NewFlagSet("dspd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usage(fs, stderr)
	fs.StringVar(&c.addr, "addr", c.addr, "public listen address (bidding endpoints)")
	fs.StringVar(&c.admin, "admin", c.admin, "admin listen address (pprof, metrics, health, reload, stats); keep it private")
	fs.StringVar(&c.campaigns, "campaigns", c.campaigns, "campaigns file, read at start, on SIGHUP and on POST /admin/reload")
	fs.StringVar(&c.seat, "seat", c.seat, "seat id written in bids")
	fs.StringVar(&c.publicURL, "public-url", "", "base URL of win notices in nurl (default http:// + the public address, localhost when its host is empty)")
	fs.DurationVar(&c.safetyMargin, "safety-margin", c.safetyMargin, "time kept back from tmax: a decision later than tmax minus this is a no bid (timeout) (0: the default)")
	fs.DurationVar(&c.bidTTL, "bid-ttl", c.bidTTL, "how long bid records wait for their win notice (0: the default)")
	fs.IntVar(&c.maxBids, "max-bids", c.maxBids, "most bid records held (about 250 bytes each); the oldest are evicted first (0: the default)")
	fs.IntVar(&c.maxFreq, "max-freq-counters", c.maxFreq, "most frequency counters held (about 80 bytes each); the least recently written are evicted first (0: the default)")
	fs.StringVar(&c.state, "state", c.state, "where budgets, frequency counters and bid records live: memory (this process), or redis://HOST:PORT/DB (shared by replicas; redis-cluster://HOST:PORT for Redis Cluster)")
	fs.DurationVar(&c.drainTimeout, "drain-timeout", c.drainTimeout, "on SIGTERM, how long in-flight requests may take to finish")
	fs.StringVar(&c.logFormat, "log-format", c.logFormat, "log format: text or json")
	fs.StringVar(&c.logLevel, "log-level", c.logLevel, "log level: debug, info, warn or error")
	fs.DurationVar(&c.timeouts.readHeader, "read-header-timeout", c.timeouts.readHeader, "time to read a request's headers")
	fs.DurationVar(&c.timeouts.read, "read-timeout", c.timeouts.read, "time to read a whole request")
	fs.DurationVar(&c.timeouts.write, "write-timeout", c.timeouts.write, "time to write a response, counted from the end of the request headers")
	fs.DurationVar(&c.timeouts.idle, "idle-timeout", c.timeouts.idle, "how long an idle keep-alive connection stays open")
	fs.IntVar(&c.timeouts.maxHeaderBytes, "max-header-bytes", c.timeouts.maxHeaderBytes, "largest request header block; larger gets 431")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dspd: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.publicURL == "" {
		c.publicURL = defaultPublicURL(c.addr)
	}
	return c, nil
}

// defaultPublicURL is http:// + the listen address, with localhost standing
// in for an empty or unspecified host (":9090", "0.0.0.0:9090"), which no
// exchange could call back.
func defaultPublicURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
