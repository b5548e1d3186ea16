package comparison

import (
	"fmt"
	"time"

	"github.com/recbid/dspd/loadtest"
)

// scenario is one load shape, run against every server.
type scenario struct {
	Key   string
	Short string // for chart labels
	Name  string
	load  func(url string, in inputs) loadtest.Config
}

// inputs are what the scenarios are built from.
type inputs struct {
	cfg      *Config
	post     [][]byte
	corpus   [][]byte
	openRate float64 // requests/s of the open-loop scenario
}

const formType = "application/x-www-form-urlencoded"

var scenarios = []scenario{
	{Key: "a", Short: "2016 ab", Name: "2016 run: -n N -c 100 -p post.data, no keep-alive", load: func(url string, in inputs) loadtest.Config {
		return loadtest.Config{URL: url, Requests: in.cfg.Requests, Concurrency: 100, Bodies: in.post, ContentType: formType}
	}},
	{Key: "b", Short: "keep-alive", Name: "keep-alive, 100 connections", load: func(url string, in inputs) loadtest.Config {
		return loadtest.Config{URL: url, Duration: in.cfg.Duration, Concurrency: 100, KeepAlive: true, Bodies: in.post, ContentType: formType}
	}},
	{Key: "c", Short: "600 conns", Name: "keep-alive, 600 connections", load: func(url string, in inputs) loadtest.Config {
		return loadtest.Config{URL: url, Duration: in.cfg.Duration, Concurrency: 600, KeepAlive: true, Bodies: in.post, ContentType: formType}
	}},
	{Key: "d", Short: "open loop", Name: "open loop at a fixed rate near Java's capacity", load: func(url string, in inputs) loadtest.Config {
		return loadtest.Config{URL: url, Duration: in.cfg.Duration, Rate: in.openRate, Concurrency: 200, KeepAlive: true,
			Bodies: in.post, ContentType: formType}
	}},
	{Key: "e", Short: "corpus", Name: "corpus replay (requests.txt), keep-alive, 100 connections", load: func(url string, in inputs) loadtest.Config {
		return loadtest.Config{URL: url, Duration: in.cfg.Duration, Concurrency: 100, KeepAlive: true, Bodies: in.corpus,
			ContentType: formType, VariableLength: true}
	}},
}

// describe names a scenario with its numbers filled in.
func (s scenario) describe(in inputs) string {
	switch s.Key {
	case "a":
		return fmt.Sprintf("2016 run: -n %d -c 100 -p post.data, no keep-alive", in.cfg.Requests)
	case "d":
		return fmt.Sprintf("open loop at %.0f req/s (%.0f%% of Java's keep-alive capacity), 200 connections, %s",
			in.openRate, in.cfg.RateFactor*100, in.cfg.Duration)
	}
	return fmt.Sprintf("%s, %s", s.Name, in.cfg.Duration.Round(time.Second))
}
