package kafka

import (
	"errors"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/recbid/dspd/events"
)

// Config configures a Shipper. Zero fields take the defaults below.
type Config struct {
	// Brokers are the seed brokers, host:port (required).
	Brokers []string
	// Topic is the topic the records go to (required; the shipper does not
	// create it).
	Topic string
	// Log is the event log shipped (required).
	Log *events.Log
	// Logger receives the outages, the recoveries and the client's errors.
	Logger *slog.Logger

	// MaxBatch and MaxBatchBytes bound one produce round (defaults
	// DefaultMaxBatch records and DefaultMaxBatchBytes of lines).
	MaxBatch      int
	MaxBatchBytes int
	// SaveEvery is how often the shipped position is saved at most
	// (default DefaultSaveEvery): each save is two fsyncs, and the records
	// acknowledged since the last save are the ones a crash sends again.
	SaveEvery time.Duration
	// PollEvery is how often the log's durable position is looked at when
	// everything is shipped (default DefaultPollEvery).
	PollEvery time.Duration
	// RetryBackoff and MaxRetryBackoff are the first and the longest wait
	// before trying again after a failure, doubled on each (defaults
	// DefaultRetryBackoff and DefaultMaxRetryBackoff, with a ±20% jitter):
	// the shipper's rounds of failed records, and the client's own retries
	// of requests and connections.
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// StopWait is how long a stop waits for the round in flight to be
	// acknowledged before giving up on it (default DefaultStopWait).
	StopWait time.Duration
	// Clock is the server clock, against which the records' times give the
	// lag in seconds (default time.Now).
	Clock func() time.Time
	// Opts are more franz-go client options, applied after the shipper's
	// own (tests, TLS, SASL).
	Opts []kgo.Opt
}

// Defaults of Config.
const (
	DefaultMaxBatch        = 10000
	DefaultMaxBatchBytes   = 16 << 20
	DefaultSaveEvery       = 100 * time.Millisecond
	DefaultPollEvery       = 5 * time.Millisecond
	DefaultRetryBackoff    = 250 * time.Millisecond
	DefaultMaxRetryBackoff = 5 * time.Second
	DefaultStopWait        = time.Second
)

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.MaxBatchBytes <= 0 {
		c.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if c.SaveEvery <= 0 {
		c.SaveEvery = DefaultSaveEvery
	}
	if c.PollEvery <= 0 {
		c.PollEvery = DefaultPollEvery
	}
	if c.RetryBackoff <= 0 {
		c.RetryBackoff = DefaultRetryBackoff
	}
	if c.MaxRetryBackoff <= 0 {
		c.MaxRetryBackoff = DefaultMaxRetryBackoff
	}
	c.MaxRetryBackoff = max(c.MaxRetryBackoff, c.RetryBackoff)
	if c.StopWait <= 0 {
		c.StopWait = DefaultStopWait
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if len(c.Brokers) == 0 {
		errs = append(errs, errors.New("Config.Brokers is required"))
	}
	if c.Topic == "" {
		errs = append(errs, errors.New("Config.Topic is required"))
	}
	if c.Log == nil {
		errs = append(errs, errors.New("Config.Log is required"))
	}
	return errors.Join(errs...)
}
