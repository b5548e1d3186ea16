package events

import (
	"log/slog"
	"os"
	"time"

	"github.com/recbid/dspd/bidder"
)

// FileSyncer does the fsyncs of the segment files the log writes.
type FileSyncer interface {
	// Track returns what syncs and closes f from now on, in place of f's
	// own Sync and Close.
	Track(f *os.File, name string) SyncCloser
}

// SyncCloser syncs and closes a file.
type SyncCloser interface {
	Sync() error
	Close() error
}

// Config configures a Log. Zero fields take the defaults below.
type Config struct {
	// Dir is the directory of the segments, created when missing; one Log
	// per directory (it is locked).
	Dir string
	// Instance names the replica in every record (default the host name).
	Instance string
	// SegmentBytes and SegmentAge finish the segment being written once it
	// holds that many bytes or its first record is that old (defaults
	// 64 MiB and 1 h).
	SegmentBytes int64
	SegmentAge   time.Duration
	// Compress gzips finished segments (.jsonl.gz).
	Compress bool
	// RetentionAge deletes finished segments finished longer ago (default
	// DefaultRetentionAge); RetentionBytes deletes the oldest finished
	// segments while all of them take more (0: no bound on size). Neither
	// deletes a segment that is not wholly shipped while KeepUnshipped.
	RetentionAge   time.Duration
	RetentionBytes int64
	// KeepUnshipped keeps every segment the shipper has not wholly shipped
	// (events/kafka), whatever its age or the directory's size.
	KeepUnshipped bool
	// Window is how long a record added without waiting may wait for its
	// write: the records of one window go in one write and one fsync
	// (group commit). 0: written as soon as the writer is free.
	Window time.Duration
	// MaxWaitingBytes bounds the records waiting for their write (default
	// 64 MiB); beyond, Add fails with ErrUnavailable.
	MaxWaitingBytes int
	// Outbox is the state's outbox of records committed with the books
	// (bidder.EventOutbox), or nil.
	Outbox bidder.EventOutbox
	// RetryEvery is how often a write that found the disk full tries again
	// (default 1 s).
	RetryEvery time.Duration
	// MaintainEvery is how often the writer checks the segment's age and
	// the retention (default 1 s).
	MaintainEvery time.Duration
	// Clock is the server clock (default time.Now): records' times, the
	// segments' ages.
	Clock func() time.Time
	// Logger receives opening, rotation, failure and recovery lines.
	Logger *slog.Logger
	// Files, when set, does the segments' fsyncs (the disk state's sync
	// helper, so that a goroutine waiting for the disk holds no Go P); nil:
	// each file's own Sync.
	Files FileSyncer
	// Fatal is called when the log cannot go on (a failed fsync, an I/O
	// error other than a full disk): it must not return. The default logs
	// and exits with status 1, as the disk state does.
	Fatal func(msg string)
}

// Defaults of Config.
const (
	DefaultSegmentBytes    = 64 << 20
	DefaultSegmentAge      = time.Hour
	DefaultRetentionAge    = 35 * 24 * time.Hour // a month's invoice and its disputes
	DefaultMaxWaitingBytes = 64 << 20
)

func (c Config) withDefaults() Config {
	if c.Instance == "" {
		c.Instance, _ = os.Hostname()
	}
	if c.SegmentBytes <= 0 {
		c.SegmentBytes = DefaultSegmentBytes
	}
	if c.SegmentAge <= 0 {
		c.SegmentAge = DefaultSegmentAge
	}
	if c.RetentionAge <= 0 {
		c.RetentionAge = DefaultRetentionAge
	}
	if c.MaxWaitingBytes <= 0 {
		c.MaxWaitingBytes = DefaultMaxWaitingBytes
	}
	if c.RetryEvery <= 0 {
		c.RetryEvery = time.Second
	}
	if c.MaintainEvery <= 0 {
		c.MaintainEvery = time.Second
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Fatal == nil {
		log := c.Logger
		c.Fatal = func(msg string) {
			log.Error("event log cannot go on; stopping (a restart reads back what was synced)", "err", msg)
			os.Exit(1)
		}
	}
	return c
}
