package overload

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/recbid/dspd/loadtest"
)

// Row is one overload of one front end.
type Row struct {
	FrontEnd    string
	Conns       int
	Capacity    float64 // req/s, closed loop at Conns connections
	Factor      float64
	Offered     float64 // req/s
	Goodput     float64 // bids answered within tmax, per second of the overload
	Shed        float64 // requests dspd shed (dspd_shed_total), per second of the overload
	Dropped     float64 // requests the load could not send at once (no connection free), per second
	P99Ms       float64 // of the answers to requests due during the overload, from their due time
	Errors5xx   int64   // 5xx answers, the whole run
	Failed      int64   // requests sent and not answered
	RSSCapacity int64   // bytes, after the capacity run
	RSSEnd      int64   // bytes, after the half-capacity run
	// Recovery is the time from the drop of the load to the first slice
	// from which every slice has only bids (no shed, no drop, no error)
	// with p99 under Config.Recovered; -1 when that never came.
	Recovery time.Duration
}

// Measure runs the measurement and returns one row per front end and
// factor.
func Measure(ctx context.Context, cfg Config) ([]Row, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	body, err := os.ReadFile(cfg.Body)
	if err != nil {
		return nil, err
	}
	body = withTmax(body, cfg.Tmax)
	var rows []Row
	for _, fe := range cfg.FrontEnds {
		for _, f := range cfg.Factors {
			// A fresh dspd for each load: one overload's after-effects
			// (its heap, its connections) must not be the next one's start.
			row, err := measureOne(ctx, &cfg, fe, f, body)
			if err != nil {
				return rows, fmt.Errorf("%s at %.1fx: %w", fe, f, err)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

var tmaxField = regexp.MustCompile(`(^|&)tmax=[0-9]*`)

// withTmax sets the form body's tmax.
func withTmax(body []byte, tmax time.Duration) []byte {
	return tmaxField.ReplaceAll(body, []byte("${1}tmax="+strconv.FormatInt(tmax.Milliseconds(), 10)))
}

func measureOne(ctx context.Context, cfg *Config, fe string, factor float64, body []byte) (Row, error) {
	row := Row{FrontEnd: fe, Conns: cfg.Conns, Factor: factor, Recovery: -1}
	srv, err := start(ctx, cfg, fe, cfg.LogDir)
	if err != nil {
		return row, err
	}
	defer func() { _ = srv.Stop() }()
	url := fmt.Sprintf("http://127.0.0.1:%d/dsp/recbid", cfg.Port)
	base := loadtest.Config{URL: url, Bodies: [][]byte{body}, ContentType: "application/x-www-form-urlencoded",
		Concurrency: cfg.Conns, KeepAlive: true, Timeout: 10 * time.Second}

	capRun := base
	capRun.Duration, capRun.WarmupDuration = cfg.Capacity, 2*time.Second
	fmt.Fprintf(cfg.Log, "%s: capacity, closed loop at %d connections for %s\n", fe, cfg.Conns, cfg.Capacity)
	capRes, err := loadtest.Run(ctx, capRun)
	if err != nil {
		return row, err
	}
	row.Capacity = capRes.RequestsPerSecond
	if row.RSSCapacity, err = srv.rss(); err != nil {
		return row, err
	}
	shedSeries := `dspd_shed_total{endpoint="recbid"}`
	shed0, err := srv.counter(shedSeries)
	if err != nil {
		return row, err
	}

	row.Offered = factor * row.Capacity
	over := base
	over.Steps = []loadtest.Step{{Rate: row.Offered, Duration: cfg.Overload}, {Rate: row.Capacity / 2, Duration: cfg.After}}
	over.Deadline, over.SendWithin, over.Timeline = cfg.Tmax, cfg.SendWithin, cfg.Slice
	fmt.Fprintf(cfg.Log, "%s: %.0f req/s (%.1fx) for %s, then %.0f req/s for %s\n", fe, row.Offered, factor, cfg.Overload, row.Capacity/2, cfg.After)
	res, err := loadtest.Run(ctx, over)
	if err != nil {
		return row, err
	}
	shed1, err := srv.counter(shedSeries)
	if err != nil {
		return row, err
	}
	if row.RSSEnd, err = srv.rss(); err != nil {
		return row, err
	}
	analyse(&row, res, cfg, shed1-shed0)
	return row, nil
}

// analyse fills row from the overload run's timeline.
func analyse(row *Row, res *loadtest.Result, cfg *Config, shed float64) {
	secs := cfg.Overload.Seconds()
	var good, dropped int64
	drop := int(cfg.Overload / cfg.Slice) // the first slice after the load drops
	for i, s := range res.Timeline {
		if i < drop {
			good += s.OnTime["200"]
			dropped += s.Dropped
		}
	}
	row.Goodput, row.Dropped, row.Shed = float64(good)/secs, float64(dropped)/secs, shed/secs
	if l, ok := res.LatencyBetween(0, cfg.Overload); ok {
		row.P99Ms = l.P99
	}
	for code, n := range res.StatusCodes {
		if c, err := strconv.Atoi(code); err == nil && c >= 500 {
			row.Errors5xx += n
		}
	}
	row.Failed = res.Failed
	recovered := -1
	for i := len(res.Timeline) - 1; i >= drop; i-- {
		if !normal(&res.Timeline[i], cfg.Recovered) {
			break
		}
		recovered = i
	}
	if recovered >= 0 {
		row.Recovery = time.Duration(recovered-drop) * cfg.Slice
	}
}

// normal reports whether every request due in s was sent and answered
// with a bid, with p99 under limit.
func normal(s *loadtest.Slice, limit time.Duration) bool {
	return s.Due > 0 && s.Dropped == 0 && s.Errors == 0 && s.Statuses["200"] == s.Due &&
		s.P99Ms < float64(limit)/float64(time.Millisecond)
}
