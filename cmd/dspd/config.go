package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/admin"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/consent"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/state/memory"
)

// config is everything dspd can be told on its command line, with defaults
// that make `dspd` alone serve testdata's campaigns on 127.0.0.1:9090.
type config struct {
	addr, admin string
	adminToken  string // the admin listener\'s bearer token; "" on loopback only
	http        string // the public listener's HTTP server: frontChi or frontFasthttp
	campaigns   string
	// maxCampaignsBytes bounds the campaigns file read; allowEmptyCampaigns
	// lets a reload serve one with no campaign.
	maxCampaignsBytes   int64
	allowEmptyCampaigns bool
	exchanges           string
	currencyRates       string
	trustedProxies      exchange.Proxies
	seat                string
	publicURL           string
	trustRequestTS      bool
	clockStart          time.Time // zero: the wall clock
	safetyMargin        time.Duration
	bidTTL              time.Duration
	maxBids             int
	maxFreq             int
	maxDays             int
	state               string
	syncHelper          bool // with -state disk: fsync in a helper process, so that it holds no P
	bidWindow           time.Duration
	drainTimeout        time.Duration
	sweepEvery          time.Duration
	logFormat           string
	logLevel            string
	limits              api.Limits // the listeners' timeouts and header limit (docs/operations.md); admin writes for at least 2 min
	gvlVendorID         int        // dspd's id on the IAB Global Vendor List; 0: none
	events              eventsConfig
	track               bool
	trackTTL            time.Duration
	maxEventClaims      int
	// apiTokens is the -api-tokens file: the management API, the console
	// and the managed campaign set are on with it ("": off).
	apiTokens string
}

// adminTokenEnv names the environment variable -admin-token defaults to.
const adminTokenEnv = "DSPD_ADMIN_TOKEN"

// maxTrackTTL bounds -track-ttl: a tracking URL's event is claimed for as
// long as it is valid.
const maxTrackTTL = 30 * 24 * time.Hour

// maxCampaignsBytes bounds -max-campaigns-bytes: 64 GiB, far past any
// campaigns file a host can index.
const maxCampaignsBytes = 64 << 30

func defaultConfig() config {
	return config{
		addr:              "127.0.0.1:9090",
		http:              frontChi,
		admin:             "127.0.0.1:6060",
		campaigns:         "testdata/campaigns.json",
		maxCampaignsBytes: bidder.DefaultMaxCatalogBytes,
		seat:              api.DefaultSeat,
		safetyMargin:      bidder.DefaultSafetyMargin,
		bidTTL:            bidder.DefaultBidTTL,
		maxBids:           memory.DefaultMaxBids,
		maxFreq:           memory.DefaultMaxFreqCounters,
		maxDays:           memory.DefaultMaxDayCounters,
		state:             "disk:data",
		bidWindow:         2 * time.Millisecond,
		drainTimeout:      15 * time.Second,
		sweepEvery:        time.Minute,
		logFormat:         "text",
		logLevel:          "info",
		limits:            api.DefaultLimits(),
		events: eventsConfig{url: "auto", segmentBytes: events.DefaultSegmentBytes, segmentAge: events.DefaultSegmentAge,
			compress: "none", retentionAge: events.DefaultRetentionAge, instance: hostname()},
		track:          true,
		trackTTL:       api.DefaultTrackTTL,
		maxEventClaims: memory.DefaultMaxEventClaims,
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	c := defaultConfig()
	fs := flag.NewFlagSet("dspd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usage(fs, stderr)
	fs.StringVar(&c.addr, "addr", c.addr, "public listen address (bidding endpoints); any address other than loopback needs -public-url")
	fs.StringVar(&c.http, "http", c.http, "the public listener's HTTP server: chi (chi on net/http) or fasthttp (valyala/fasthttp); the admin listener is always net/http")
	fs.StringVar(&c.admin, "admin", c.admin, "admin listen address (pprof, metrics, health, reload, stats); any address other than loopback needs -admin-token")
	fs.StringVar(&c.adminToken, "admin-token", "", "bearer token of the admin listener's routes but /healthz and /readyz, at least 32 characters (default $"+adminTokenEnv+", which keeps it out of the process list)")
	fs.StringVar(&c.campaigns, "campaigns", c.campaigns, "campaigns file, read at start, on SIGHUP and on POST /admin/reload")
	fs.Int64Var(&c.maxCampaignsBytes, "max-campaigns-bytes", c.maxCampaignsBytes, "largest campaigns file read: a larger one is refused (by its size, or counting while it is read) (0: the default)")
	fs.BoolVar(&c.allowEmptyCampaigns, "allow-empty-campaigns", false, "let a reload serve a campaigns file with no campaign, which stops all bidding (without it such a reload is refused; at start it is served with a warning)")
	fs.StringVar(&c.exchanges, "exchanges", "", "exchanges file (ids, allowed sources, tokens, price keys), read with the campaigns; without it, one open exchange \"default\" on the bare paths")
	fs.StringVar(&c.currencyRates, "currency-rates", "", "currency rates in Prebid's currency-file format, read with the campaigns: OpenRTB floors in a listed currency are converted to USD (rounded up) instead of getting no bid (reason currency)")
	fs.Func("trusted-proxies", "comma-separated CIDRs of proxies whose X-Forwarded-For names the client, for the exchanges' allow lists (default none)", func(v string) error {
		p, err := exchange.ParseProxies(v)
		c.trustedProxies = p
		return err
	})
	fs.StringVar(&c.seat, "seat", c.seat, "seat id written in bids")
	fs.StringVar(&c.publicURL, "public-url", "", "base URL of win notices in nurl, as exchanges reach this server (default http:// + -addr; required when -addr is not loopback)")
	fs.BoolVar(&c.trustRequestTS, "trust-request-ts", false, "take a bid request's ts as its request time (replays and tests only: a client then chooses the budget day and frequency window)")
	fs.Func("clock-start", "start the server clock at this RFC 3339 instant and run it at real speed from there (tests and replays, never production)", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return errors.New("want an RFC 3339 time such as 2026-11-04T08:00:00Z")
		}
		c.clockStart = t
		return nil
	})
	fs.DurationVar(&c.safetyMargin, "safety-margin", c.safetyMargin, "time kept back from tmax: a decision later than tmax minus this is a no bid (timeout) (0: the default)")
	fs.DurationVar(&c.bidTTL, "bid-ttl", c.bidTTL, "how long bid records wait for their win notice, at most 24h (0: the default)")
	fs.IntVar(&c.maxBids, "max-bids", c.maxBids, fmt.Sprintf("most bid records held (%d bytes each, taken as they are made); when full of live records, bids are refused (reason capacity) (0: the default)", memory.BidRecordBytes))
	fs.IntVar(&c.maxFreq, "max-freq-counters", c.maxFreq, "most frequency counters held (about 70 bytes each); when full of live counters, bids on capped campaigns are refused (reason capacity) (0: the default)")
	fs.IntVar(&c.maxDays, "max-day-counters", c.maxDays, "most (campaign, day) budget counters held; when full of live counters, bids are refused (reason capacity) (0: the default)")
	fs.StringVar(&c.state, "state", c.state, "where budgets, frequency counters and bid records live: disk:DIR (kept through restarts and crashes, one dspd per directory), memory (this process only: lost at exit), or redis://HOST:PORT/DB (shared by replicas; redis-cluster://HOST:PORT for Redis Cluster)")
	fs.BoolVar(&c.syncHelper, "sync-helper", c.syncHelper, "with -state disk: fsync (the database's and the event log's) in a helper process (this binary started again), so that a goroutine waiting for the disk holds no Go scheduler's P and dspd runs with GOMAXPROCS 1; off (the default): fsync in-process, with GOMAXPROCS raised to at least 2, which measured faster on one CPU (docs/operations.md, One CPU)")
	fs.DurationVar(&c.bidWindow, "bid-window", c.bidWindow, "with -state disk: 0 answers a bid once its record is durable (group commit); above 0, bids are answered at once and their records written within this window, which a crash can lose (docs/operations.md)")
	fs.DurationVar(&c.drainTimeout, "drain-timeout", c.drainTimeout, "on SIGTERM, how long in-flight requests may take to finish")
	fs.StringVar(&c.logFormat, "log-format", c.logFormat, "log format: text or json")
	fs.StringVar(&c.logLevel, "log-level", c.logLevel, "log level: debug, info, warn or error")
	fs.DurationVar(&c.limits.ReadHeaderTimeout, "read-header-timeout", c.limits.ReadHeaderTimeout, "time to read a request's headers (0: the default)")
	fs.DurationVar(&c.limits.ReadTimeout, "read-timeout", c.limits.ReadTimeout, "time to read a whole request (0: the default)")
	fs.DurationVar(&c.limits.WriteTimeout, "write-timeout", c.limits.WriteTimeout, "time to write a response, counted from the end of the request headers (0: the default)")
	fs.DurationVar(&c.limits.IdleTimeout, "idle-timeout", c.limits.IdleTimeout, "how long an idle keep-alive connection stays open (0: the default)")
	fs.IntVar(&c.limits.MaxHeaderBytes, "max-header-bytes", c.limits.MaxHeaderBytes, "largest request header block; larger gets 431 (0: the default)")
	fs.IntVar(&c.gvlVendorID, "gvl-vendor-id", 0, "this DSP's id on the IAB Europe Global Vendor List, read in TC strings (docs/privacy.md); without it every OpenRTB request where GDPR applies is a no bid (reason consent)")
	ev := &c.events
	fs.StringVar(&ev.url, "events", ev.url, "the event log of bids, wins, billing notices, impressions and clicks: auto (file:DIR/events with -state disk:DIR, else none), none, file:DIR, or kafka://HOST:PORT[,HOST:PORT…]/TOPIC (spooled in -events-dir first) (docs/events.md)")
	fs.StringVar(&ev.dir, "events-dir", "", "the event log's segments, and Kafka's spool (default DIR/events with -state disk:DIR; required for Kafka with another state)")
	fs.Int64Var(&ev.segmentBytes, "events-segment-bytes", ev.segmentBytes, "an event log segment is finished at this size")
	fs.DurationVar(&ev.segmentAge, "events-segment-age", ev.segmentAge, "an event log segment is finished when its first record is this old")
	fs.StringVar(&ev.compress, "events-compress", ev.compress, "compress finished segments: none or gzip")
	fs.DurationVar(&ev.retentionAge, "events-retention-age", ev.retentionAge, "delete finished segments older than this (never one not yet shipped to Kafka)")
	fs.Int64Var(&ev.retentionBytes, "events-retention-bytes", 0, "delete the oldest finished segments while all take more than this (0: no bound; a full disk then stops bidding)")
	fs.IntVar(&ev.nobidSample, "events-nobid-sample", 0, "write the record of one no bid in N (0: none)")
	fs.StringVar(&ev.instance, "instance", ev.instance, "this replica's name in every event record (default the host name)")
	fs.BoolVar(&c.track, "track", c.track, "put dspd's signed impression pixel and click URL in every bid's adm; -track=false answers contract version 2's bytes exactly")
	fs.DurationVar(&c.trackTTL, "track-ttl", c.trackTTL, "how long after its bid a tracking URL is valid (at most 30 days)")
	fs.StringVar(&c.apiTokens, "api-tokens", "", "tokens file of the campaign management API and the console on the admin listener (docs/api.md); with it the campaigns are managed in the state, seeded from -campaigns once, and -campaigns is not read again; without it the API and the console are off")
	fs.IntVar(&c.maxEventClaims, "max-event-claims", c.maxEventClaims, "with -state memory: most once-only event claims (impressions, clicks, billing notices) held; when full of live ones, such events are refused (503) (0: the default)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.adminToken == "" {
		c.adminToken = os.Getenv(adminTokenEnv) // read after Parse: a flag default would print it in the usage text
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dspd: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := c.check(); err != nil {
		fmt.Fprintln(stderr, "dspd:", err)
		return c, err
	}
	return c, nil
}

// check completes the configuration and refuses what would bend the books.
func (c *config) check() error {
	if c.http != frontChi && c.http != frontFasthttp {
		return fmt.Errorf("-http %q: want %s or %s", c.http, frontChi, frontFasthttp)
	}
	if c.publicURL == "" {
		if !isLoopback(c.addr) {
			return fmt.Errorf("-addr %s is not a loopback address, so -public-url is required: "+
				"pass the URL exchanges reach this server at (e.g. -public-url https://bid.example.com)", c.addr)
		}
		c.publicURL = "http://" + c.addr
	}
	switch {
	case c.adminToken == "" && !isLoopback(c.admin):
		return fmt.Errorf("-admin %s is not a loopback address, so -admin-token (or $%s) is required: "+
			"the admin listener reloads campaigns and shows profiles and stats", c.admin, adminTokenEnv)
	case c.adminToken != "" && len(c.adminToken) < admin.MinTokenBytes:
		return fmt.Errorf("-admin-token: at least %d characters", admin.MinTokenBytes)
	case strings.TrimSpace(c.adminToken) != c.adminToken || strings.ContainsAny(c.adminToken, " \t\r\n"):
		return errors.New("-admin-token: no spaces (a bearer token is one word)")
	case c.maxCampaignsBytes < 0 || c.maxCampaignsBytes > maxCampaignsBytes:
		return fmt.Errorf("-max-campaigns-bytes %d: 0 (the default) to %d", c.maxCampaignsBytes, int64(maxCampaignsBytes))
	}
	switch {
	case c.events.compress != "none" && c.events.compress != "gzip":
		return fmt.Errorf("-events-compress %q: want none or gzip", c.events.compress)
	case c.events.nobidSample < 0:
		return fmt.Errorf("-events-nobid-sample %d: 0 (none) or more", c.events.nobidSample)
	case c.events.retentionBytes < 0:
		return fmt.Errorf("-events-retention-bytes %d: 0 (no bound) or more", c.events.retentionBytes)
	case c.trackTTL < 0 || c.trackTTL > maxTrackTTL:
		return fmt.Errorf("-track-ttl %v: at most %v", c.trackTTL, maxTrackTTL)
	case c.events.instance == "" || len(c.events.instance) > 64:
		return errors.New("-instance: 1-64 characters")
	}
	if c.gvlVendorID < 0 || c.gvlVendorID > consent.MaxVendorID {
		return fmt.Errorf("-gvl-vendor-id %d: 0 (none) to %d", c.gvlVendorID, consent.MaxVendorID)
	}
	if _, err := resolveEvents(c.events, c.state); err != nil {
		return err
	}
	if c.bidTTL > bidder.MaxBidTTL {
		return fmt.Errorf("-bid-ttl %v: at most %v", c.bidTTL, bidder.MaxBidTTL)
	}
	if c.maxBids > memory.MaxBids {
		return fmt.Errorf("-max-bids %d: at most %d", c.maxBids, memory.MaxBids)
	}
	return nil
}

// isLoopback reports whether a listen address is on loopback only: a host
// in 127.0.0.0/8, ::1 or localhost. An empty or unspecified host listens on
// every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
