package comparison

import (
	"fmt"
	"strings"
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
	openRate float64 // requests/s of the open-loop scenario, for the server at hand
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
	{Key: "d", Short: "open loop", Name: "open loop at a fixed rate per pair, the same for both servers of a pair", load: func(url string, in inputs) loadtest.Config {
		return loadtest.Config{URL: url, Duration: in.cfg.Duration, Rate: in.openRate, Concurrency: 200, KeepAlive: true,
			Bodies: in.post, ContentType: formType}
	}},
	{Key: "e", Short: "corpus", Name: "corpus replay (requests.txt), keep-alive, 100 connections", load: func(url string, in inputs) loadtest.Config {
		return loadtest.Config{URL: url, Duration: in.cfg.Duration, Concurrency: 100, KeepAlive: true, Bodies: in.corpus,
			ContentType: formType, VariableLength: true}
	}},
}

// describe names a scenario with its numbers filled in; rates are the
// open loop's by pair.
func (s scenario) describe(cfg *Config, rates map[string]float64) string {
	switch s.Key {
	case "a":
		return fmt.Sprintf("2016 run: -n %d -c 100 -p post.data, no keep-alive", cfg.Requests)
	case "d":
		var each []string
		for _, p := range pairs {
			each = append(each, fmt.Sprintf("%s %.0f req/s", p.Key, rates[p.Key]))
		}
		return fmt.Sprintf("open loop at %.0f%% of the slower server of each pair in (b) (%s), 200 connections, %s",
			cfg.RateFactor*100, strings.Join(each, ", "), cfg.Duration.Round(time.Second))
	}
	return fmt.Sprintf("%s, %s", s.Name, cfg.Duration.Round(time.Second))
}

func scenarioByKey(key string) (scenario, bool) {
	for _, s := range scenarios {
		if s.Key == key {
			return s, true
		}
	}
	return scenario{}, false
}
