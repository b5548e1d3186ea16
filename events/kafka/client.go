package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// newClient returns the producer: idempotent (franz-go's default), acks
// from all in-sync replicas, the shipper's backoff, hooks counting the
// brokers' failures, then the caller's options.
func (s *Shipper) newClient() (*kgo.Client, error) {
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.cfg.Brokers...),
		kgo.ClientID("dspd-events"),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RetryBackoffFn(s.backoff),
		kgo.WithHooks(hooks{s}),
		kgo.WithLogger(kgoLogger{s.cfg.Logger}),
	}
	cl, err := kgo.NewClient(append(opts, s.cfg.Opts...)...)
	if err != nil {
		return nil, fmt.Errorf("events/kafka: client: %w", err)
	}
	return cl, nil
}

// backoff returns the wait before try number fails+1: RetryBackoff doubled
// per failure up to MaxRetryBackoff, ±20%.
func (s *Shipper) backoff(fails int) time.Duration {
	d := s.cfg.RetryBackoff
	for i := 1; i < fails && d < s.cfg.MaxRetryBackoff; i++ {
		d *= 2
	}
	d = min(d, s.cfg.MaxRetryBackoff)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// hooks count the client's failed connections and requests.
type hooks struct{ s *Shipper }

var (
	_ kgo.HookBrokerConnect = hooks{}
	_ kgo.HookBrokerE2E     = hooks{}
)

// OnBrokerConnect counts a connection that could not be opened.
func (h hooks) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err != nil {
		h.s.brokerError(fmt.Errorf("connect to broker %s:%d: %w", meta.Host, meta.Port, err))
	}
}

// OnBrokerE2E counts a request written or answered with an error.
func (h hooks) OnBrokerE2E(meta kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if err := e2e.Err(); err != nil {
		h.s.brokerError(fmt.Errorf("request %d to broker %s:%d: %w", key, meta.Host, meta.Port, err))
	}
}

// brokerError counts a failure, unless the shipper is closing the client.
func (s *Shipper) brokerError(err error) {
	if s.closing.Load() {
		return
	}
	s.st.brokerErrors.Add(1)
	s.st.fail(err, time.Now())
	s.changed.notify()
}

// kgoLogger passes the client's errors to the shipper's logger; its
// warnings (a connection refused, at each retry) would flood it during an
// outage, which the shipper reports once itself.
type kgoLogger struct{ l *slog.Logger }

func (k kgoLogger) Level() kgo.LogLevel { return kgo.LogLevelError }

func (k kgoLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	lv := slog.LevelError
	switch level {
	case kgo.LogLevelWarn:
		lv = slog.LevelWarn
	case kgo.LogLevelInfo:
		lv = slog.LevelInfo
	case kgo.LogLevelDebug:
		lv = slog.LevelDebug
	}
	k.l.Log(context.Background(), lv, "kafka client: "+msg, keyvals...)
}
