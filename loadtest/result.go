package loadtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Result is what a run measured. It is saved as JSON (-o) and several
// results merge into one (loadgen merge).
type Result struct {
	Tool     string    `json:"tool"`
	Started  time.Time `json:"started"`
	Machines []string  `json:"machines"` // hosts that produced the load

	URL            string `json:"url"`
	Method         string `json:"method"`
	ServerSoftware string `json:"server_software"`
	Host           string `json:"host"`
	Port           string `json:"port"`
	Path           string `json:"path"`
	DocumentLength int64  `json:"document_length"` // of the first answer

	Concurrency int     `json:"concurrency"`
	KeepAlive   bool    `json:"keep_alive"`
	OpenLoop    bool    `json:"open_loop"`
	TargetRate  float64 `json:"target_rate,omitempty"` // requests/s asked for (open loop)
	Schedule    []Step  `json:"schedule,omitempty"`    // an open loop's steps (-rate R:D,…)
	Connections int64   `json:"connections"`           // TCP connections opened
	// KeepAliveRequests counts the answers that left their connection open.
	KeepAliveRequests int64 `json:"keep_alive_requests"`

	DurationSeconds   float64 `json:"duration_seconds"`
	Complete          int64   `json:"complete"` // requests finished, failed or not
	Failed            int64   `json:"failed"`   // ab's count: connect, receive (timeouts too), length, exceptions
	Non2xx            int64   `json:"non_2xx"`
	RequestsPerSecond float64 `json:"requests_per_second"` // complete / duration: the achieved rate

	StatusCodes map[string]int64 `json:"status_codes"`
	// With -tmax: the deadline, the requests dropped unsent because no
	// worker was free within it of their due time, and the answers that
	// came within it, by status.
	DeadlineMs float64          `json:"deadline_ms,omitempty"`
	Dropped    int64            `json:"dropped"`
	OnTime     map[string]int64 `json:"on_time,omitempty"`
	// Timeline holds the run slice by slice (-timeline), each
	// TimelineWidthS long; Merge leaves it out.
	TimelineWidthS float64          `json:"timeline_width_s,omitempty"`
	Timeline       []Slice          `json:"timeline,omitempty"`
	Errors         map[string]int64 `json:"errors"` // by kind: connect, write, receive, timeout, length, exceptions

	Bytes struct {
		Received int64 `json:"received"` // headers and bodies
		Body     int64 `json:"body"`     // documents ("HTML transferred")
		Sent     int64 `json:"sent"`     // requests, headers and bodies
		BodySent int64 `json:"body_sent"`
	} `json:"bytes"`

	// Latency of the requests in milliseconds; in an open loop counted from
	// each request's scheduled send time.
	Latency Summary `json:"latency_ms"`

	// Histograms in microseconds, HdrHistogram's V2 compressed encoding
	// (base64), readable by any HdrHistogram implementation.
	Histograms struct {
		Total      string `json:"total"`
		Connect    string `json:"connect"`
		Waiting    string `json:"waiting"`
		Processing string `json:"processing"`
	} `json:"histograms"`

	hist       struct{ total, connect, waiting, processing *hdrhistogram.Histogram }
	sliceHists []*hdrhistogram.Histogram // the timeline's, in memory only
}

// Summary is a latency distribution in milliseconds.
type Summary struct {
	Min    float64 `json:"min"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	P50    float64 `json:"p50"`
	P66    float64 `json:"p66"`
	P75    float64 `json:"p75"`
	P80    float64 `json:"p80"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P98    float64 `json:"p98"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p99_9"`
	Max    float64 `json:"max"`
}

func summarize(h *hdrhistogram.Histogram) Summary {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if h.TotalCount() == 0 {
		return Summary{}
	}
	return Summary{
		Min: ms(h.Min()), Mean: h.Mean() / 1000, StdDev: h.StdDev() / 1000,
		P50: ms(h.ValueAtQuantile(50)), P66: ms(h.ValueAtQuantile(66)), P75: ms(h.ValueAtQuantile(75)),
		P80: ms(h.ValueAtQuantile(80)), P90: ms(h.ValueAtQuantile(90)), P95: ms(h.ValueAtQuantile(95)),
		P98: ms(h.ValueAtQuantile(98)), P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)),
		Max: ms(h.Max()),
	}
}

func (r *run) result(rec *recorder, start time.Time, elapsed time.Duration) *Result {
	cfg := &r.cfg
	res := &Result{
		Tool: "loadgen", Started: start.UTC(), Machines: []string{hostname()},
		URL: cfg.URL, Method: cfg.method(), ServerSoftware: rec.server,
		Host: r.target.host, Port: r.target.port, Path: r.target.path,
		DocumentLength: max(r.docLen.Load(), 0),
		Concurrency:    cfg.Concurrency, KeepAlive: cfg.KeepAlive,
		OpenLoop: cfg.Rate > 0 || len(cfg.Steps) > 0, TargetRate: cfg.Rate, Schedule: cfg.Steps, Connections: r.conns.Load(),
		DeadlineMs: float64(cfg.Deadline) / float64(time.Millisecond), Dropped: rec.dropped,
		DurationSeconds: elapsed.Seconds(),
		Complete:        rec.complete, Non2xx: rec.non2xx,
		StatusCodes: map[string]int64{}, Errors: map[string]int64{},
	}
	for s, n := range rec.statuses {
		res.StatusCodes[statusKey(s)] = n
	}
	if cfg.Deadline > 0 {
		res.OnTime = byStatus(rec.onTime)
	}
	if cfg.Timeline > 0 {
		res.TimelineWidthS, res.Timeline, res.sliceHists = cfg.Timeline.Seconds(), rec.timeline(), rec.histograms()
	}
	for k := kindConnect; k < numKinds; k++ {
		res.Errors[kindNames[k]] = rec.kinds[k]
	}
	res.Bytes.Received = rec.headerBytes + rec.bodyBytes
	res.Bytes.Body = rec.docBytes
	res.Bytes.Sent = rec.sentBytes
	res.Bytes.BodySent = rec.bodySent
	res.KeepAliveRequests = rec.keptAlive
	res.hist.total, res.hist.connect, res.hist.waiting, res.hist.processing = rec.total, rec.connect, rec.waiting, rec.processing
	res.finish()
	return res
}

// finish derives the counts and summaries from the histograms and counters.
func (res *Result) finish() {
	e := res.Errors
	res.Failed = e["connect"] + e["receive"] + e["timeout"] + e["length"] + e["exceptions"] + e["write"]
	if res.DurationSeconds > 0 {
		res.RequestsPerSecond = float64(res.Complete) / res.DurationSeconds
	}
	res.Latency = summarize(res.hist.total)
	res.Histograms.Total = encode(res.hist.total)
	res.Histograms.Connect = encode(res.hist.connect)
	res.Histograms.Waiting = encode(res.hist.waiting)
	res.Histograms.Processing = encode(res.hist.processing)
}

func encode(h *hdrhistogram.Histogram) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// Save writes the result as indented JSON.
func (res *Result) Save(path string) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Load reads a result written by Save.
func Load(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, h := range []struct {
		dst  **hdrhistogram.Histogram
		text string
	}{
		{&res.hist.total, res.Histograms.Total}, {&res.hist.connect, res.Histograms.Connect},
		{&res.hist.waiting, res.Histograms.Waiting}, {&res.hist.processing, res.Histograms.Processing},
	} {
		if *h.dst, err = hdrhistogram.Decode([]byte(h.text)); err != nil {
			return nil, fmt.Errorf("%s: histogram: %w", path, err)
		}
	}
	return &res, nil
}

// Merge combines the results of runs made at the same time from several
// machines against one server: counts, bytes and histograms add up, the
// duration is the longest, so the rate is the total over that duration.
func Merge(results ...*Result) (*Result, error) {
	if len(results) == 0 {
		return nil, errors.New("nothing to merge")
	}
	first := results[0]
	m := &Result{
		Tool: "loadgen", Started: first.Started, URL: first.URL, Method: first.Method,
		ServerSoftware: first.ServerSoftware, Host: first.Host, Port: first.Port, Path: first.Path,
		DocumentLength: first.DocumentLength, KeepAlive: first.KeepAlive, OpenLoop: first.OpenLoop,
		StatusCodes: map[string]int64{}, Errors: map[string]int64{},
	}
	m.hist.total, m.hist.connect, m.hist.waiting, m.hist.processing = newHistogram(), newHistogram(), newHistogram(), newHistogram()
	for _, r := range results {
		if r.hist.total == nil {
			return nil, errors.New("merge: a result without histograms (use Load)")
		}
		if r.Started.Before(m.Started) {
			m.Started = r.Started
		}
		m.Machines = append(m.Machines, r.Machines...)
		m.Concurrency += r.Concurrency
		m.TargetRate += r.TargetRate
		m.Connections += r.Connections
		m.KeepAliveRequests += r.KeepAliveRequests
		m.DurationSeconds = max(m.DurationSeconds, r.DurationSeconds)
		m.Complete += r.Complete
		m.Non2xx += r.Non2xx
		for k, n := range r.StatusCodes {
			m.StatusCodes[k] += n
		}
		m.DeadlineMs = max(m.DeadlineMs, r.DeadlineMs)
		m.Dropped += r.Dropped
		for k, n := range r.OnTime {
			if m.OnTime == nil {
				m.OnTime = map[string]int64{}
			}
			m.OnTime[k] += n
		}
		for k, n := range r.Errors {
			m.Errors[k] += n
		}
		m.Bytes.Received += r.Bytes.Received
		m.Bytes.Body += r.Bytes.Body
		m.Bytes.Sent += r.Bytes.Sent
		m.Bytes.BodySent += r.Bytes.BodySent
		m.hist.total.Merge(r.hist.total)
		m.hist.connect.Merge(r.hist.connect)
		m.hist.waiting.Merge(r.hist.waiting)
		m.hist.processing.Merge(r.hist.processing)
	}
	sort.Strings(m.Machines)
	m.finish()
	return m, nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

// sortedStatuses returns the status codes in numeric order.
func (res *Result) sortedStatuses() []string {
	keys := make([]string, 0, len(res.StatusCodes))
	for k := range res.StatusCodes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.Atoi(keys[i])
		b, _ := strconv.Atoi(keys[j])
		return a < b
	})
	return keys
}

// LatencyAt returns the latency in milliseconds at percentile p (0–100) of
// the total-latency histogram.
func (res *Result) LatencyAt(p float64) float64 {
	if res.hist.total == nil {
		return 0
	}
	return float64(res.hist.total.ValueAtQuantile(p)) / 1000
}
