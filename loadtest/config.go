package loadtest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Config describes one load run. Zero fields take ab's defaults where ab
// has one.
type Config struct {
	URL         string
	Method      string   // default POST when there are bodies, else GET
	Bodies      [][]byte // request bodies, sent round robin; none for a GET
	ContentType string   // -T
	Headers     []string // -H, "Name: value"

	Requests    int64         // -n: exactly this many requests; 0 with a duration means no limit
	Concurrency int           // -c, default 1
	TimeLimit   time.Duration // -t: stop after this long; implies Requests 50000 when unset, as in ab
	Duration    time.Duration // -d: run this long, with no request limit unless Requests is set
	Rate        float64       // -rate: open loop at this many requests per second; 0: closed loop
	// Steps is an open loop's schedule (-rate R:D,…): each step's rate for
	// its duration, one after the other; the run lasts their sum. Not with
	// Rate or Duration.
	Steps []Step
	// Deadline (-tmax) makes the driver behave as an exchange does with a
	// bidder's tmax: a request its worker cannot send within Deadline of
	// its due time is dropped, not sent (Result.Dropped), and an answer
	// is on time when it came within Deadline of its due time
	// (Result.OnTime). 0: nothing is dropped, nothing is timed.
	Deadline time.Duration
	// SendWithin (-send-within) is how late after its due time a request
	// may still be sent, for an exchange that skips a bidder with no free
	// connection rather than queue the auction; default Deadline.
	SendWithin time.Duration
	// Timeline (-timeline) is the width of the slices of the run that
	// Result.Timeline reports one by one (requests by due time); 0: none.
	Timeline  time.Duration
	KeepAlive bool          // -k
	Timeout   time.Duration // -s: per request, default 30s

	VariableLength bool // -l: do not count answers of another length as failures

	WarmupDuration time.Duration // unmeasured load first, for this long…
	WarmupRequests int64         // …or this many requests

	Progress io.Writer // "Completed N requests" lines; nil is silent
}

// Defaults of Config.
const (
	DefaultTimeout      = 30 * time.Second
	timeLimitedRequests = 50000
)

func (c Config) method() string {
	if c.Method != "" {
		return c.Method
	}
	if len(c.Bodies) > 0 {
		return http.MethodPost
	}
	return http.MethodGet
}

// normalize applies the defaults and checks the combination of settings.
func (c *Config) normalize() error {
	if c.Concurrency == 0 {
		c.Concurrency = 1
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.Concurrency < 0:
		return errors.New("concurrency must be at least 1")
	case c.Requests < 0:
		return errors.New("the number of requests must be positive")
	case c.TimeLimit < 0 || c.Duration < 0 || c.Rate < 0 || c.Timeout < 0:
		return errors.New("durations and rates must be positive")
	case c.TimeLimit > 0 && c.Duration > 0:
		return errors.New("use -t or -d, not both")
	case c.Deadline < 0 || c.Timeline < 0 || c.SendWithin < 0:
		return errors.New("-tmax, -send-within and -timeline must be positive")
	case len(c.Steps) > 0 && (c.Rate > 0 || c.Duration > 0 || c.TimeLimit > 0):
		return errors.New("a schedule of steps sets the rate and the duration: no -d, -t or single rate beside it")
	}
	if len(c.Steps) > 0 {
		var err error
		if c.Duration, err = checkSteps(c.Steps); err != nil {
			return err
		}
	}
	if c.SendWithin == 0 {
		c.SendWithin = c.Deadline
	}
	if c.Timeline > 0 && c.stopAt() == 0 {
		return errors.New("a timeline needs a run of known length (-d, -t or a schedule)")
	}
	if c.TimeLimit > 0 && c.Requests == 0 {
		c.Requests = timeLimitedRequests
	}
	if c.Requests == 0 && c.Duration == 0 {
		c.Requests = 1 // ab's default
	}
	if c.Requests > 0 && int64(c.Concurrency) > c.Requests {
		return fmt.Errorf("cannot use concurrency level %d greater than the number of requests %d", c.Concurrency, c.Requests)
	}
	if c.Method == "" && len(c.Bodies) == 0 && c.ContentType != "" {
		return errors.New("a content type needs a body (-p or -corpus)")
	}
	return nil
}

// stopAt returns how long the measured part of a run may last; 0 is no limit.
func (c *Config) stopAt() time.Duration {
	if c.TimeLimit > 0 {
		return c.TimeLimit
	}
	return c.Duration
}
