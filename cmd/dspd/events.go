package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/events/kafka"
	"github.com/recbid/dspd/state"
	"github.com/recbid/dspd/state/disk/synchelper"
)

// eventsConfig is the event log's part of the command line.
type eventsConfig struct {
	url            string // -events: auto, none, file:DIR or kafka://HOST:PORT[,…]/TOPIC
	dir            string // -events-dir: the segments (the spool, for Kafka)
	segmentBytes   int64
	segmentAge     time.Duration
	compress       string // none or gzip
	retentionAge   time.Duration
	retentionBytes int64
	nobidSample    int
	instance       string
}

// eventsTarget is what -events resolved to.
type eventsTarget struct {
	dir     string   // "" for none
	brokers []string // Kafka, when shipping
	topic   string
}

// errEventsURL is the cause of a bad -events.
var errEventsURL = errors.New("want auto, none, file:DIR or kafka://HOST:PORT[,HOST:PORT…]/TOPIC")

// resolveEvents reads -events and -events-dir against the state: auto is
// file:DIR/events with the disk state (DIR its directory), none otherwise.
func resolveEvents(c eventsConfig, stateURL string) (eventsTarget, error) {
	diskDir, onDisk := strings.CutPrefix(stateURL, "disk:")
	defaultDir := c.dir
	if defaultDir == "" && onDisk && diskDir != "" {
		defaultDir = filepath.Join(diskDir, "events")
	}
	switch u := c.url; {
	case u == "none":
		return eventsTarget{}, nil
	case u == "auto" || u == "":
		if !onDisk {
			return eventsTarget{}, nil
		}
		return eventsTarget{dir: defaultDir}, nil
	case strings.HasPrefix(u, "file:"):
		dir := strings.TrimPrefix(u, "file:")
		if dir == "" {
			return eventsTarget{}, fmt.Errorf("-events %q: %w", u, errEventsURL)
		}
		return eventsTarget{dir: dir}, nil
	case strings.HasPrefix(u, "kafka://"):
		hosts, topic, ok := strings.Cut(strings.TrimPrefix(u, "kafka://"), "/")
		if !ok || topic == "" || hosts == "" || strings.ContainsAny(topic, "/ ") {
			return eventsTarget{}, fmt.Errorf("-events %q: %w", u, errEventsURL)
		}
		brokers := strings.Split(hosts, ",")
		for _, b := range brokers {
			if _, _, err := net.SplitHostPort(b); err != nil {
				return eventsTarget{}, fmt.Errorf("-events %q: broker %q is not HOST:PORT", u, b)
			}
		}
		if defaultDir == "" {
			return eventsTarget{}, fmt.Errorf("-events %q: the records are spooled on disk before they are shipped: "+
				"-events-dir DIR is required with a state that is not on disk", u)
		}
		return eventsTarget{dir: defaultDir, brokers: brokers, topic: topic}, nil
	}
	return eventsTarget{}, fmt.Errorf("-events %q: %w", c.url, errEventsURL)
}

// openEvents opens the event log -events names, or returns nil for none.
// Records the state commits with its books (the disk state's outbox) are
// taken from it.
func openEvents(cfg config, t eventsTarget, st *state.Store, now func() time.Time, log *slog.Logger) (*events.Log, error) {
	if t.dir == "" {
		return nil, nil
	}
	ec := cfg.events
	l, err := events.Open(events.Config{
		Dir:            t.dir,
		Instance:       ec.instance,
		SegmentBytes:   ec.segmentBytes,
		SegmentAge:     ec.segmentAge,
		Compress:       ec.compress == "gzip",
		RetentionAge:   ec.retentionAge,
		RetentionBytes: ec.retentionBytes,
		KeepUnshipped:  len(t.brokers) > 0,
		Window:         cfg.bidWindow,
		Outbox:         st.Outbox(),
		Files:          helperFiles(st.SyncHelper),
		Clock:          now,
		Logger:         log,
	})
	if err != nil {
		return nil, fmt.Errorf("event log: %w", err)
	}
	log.Info("event log open", "dir", t.dir, "instance", l.Instance(), "kafka", strings.Join(t.brokers, ","), "topic", t.topic,
		"segment_bytes", ec.segmentBytes, "segment_age", ec.segmentAge, "compress", ec.compress)
	return l, nil
}

// helperFiles has the disk state's sync helper do the event log's fsyncs
// too, so that with one P no fsync holds it; nil without a helper.
func helperFiles(h *synchelper.Helper) events.FileSyncer {
	if h == nil {
		return nil
	}
	return helperSyncer{h}
}

// helperSyncer is events.FileSyncer over a sync helper.
type helperSyncer struct{ h *synchelper.Helper }

func (s helperSyncer) Track(f *os.File, name string) events.SyncCloser { return s.h.OSFile(f, name) }

// hostname is the default -instance.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "dspd"
	}
	return h
}

// ship starts the shipper of the log's records to Kafka; the function it
// returns stops it, its position saved.
func ship(l *events.Log, t eventsTarget, now func() time.Time, log *slog.Logger, srv *api.Server) (stop func(), err error) {
	sh, err := kafka.New(kafka.Config{Brokers: t.brokers, Topic: t.topic, Log: l, Logger: log, Clock: now})
	if err != nil {
		return nil, fmt.Errorf("event shipping: %w", err)
	}
	if err := srv.Register(sh.Collector()); err != nil {
		sh.Close()
		return nil, fmt.Errorf("event shipping metrics: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := sh.Run(ctx); err != nil {
			log.Error("event shipping stopped", "err", err)
		}
	}()
	return func() {
		// What the log still holds is written, and shipped while the
		// brokers take it, for a few seconds; the rest ships at the next
		// start, from the spool.
		if err := l.Flush(); err == nil {
			deadline := time.Now().Add(shipAtStop)
			for sh.Stats().Shipped.Before(l.Durable()) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond) // polling the shipper's progress: nothing to wait on
			}
		}
		cancel()
		<-done
	}, nil
}

// shipAtStop is how long a stop waits for the shipper to catch up.
const shipAtStop = 5 * time.Second
