package disk

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/disk/synchelper"
	"github.com/recbid/dspd/state/memory"
)

// ErrUnavailable is the cause of every failure while the store cannot
// write: the bid or win is refused (state_unavailable, 503) and retried.
var ErrUnavailable = errors.New("disk state unavailable")

// ErrLocked: another process holds the directory.
var ErrLocked = errors.New("state directory in use")

// ErrUnwritable: the directory cannot be written (read-only, or not this
// process's to write).
var ErrUnwritable = errors.New("state directory not writable")

// Config configures a Store; zero fields take the memory stores' defaults.
type Config struct {
	// Dir is the directory of the database, created when missing.
	Dir string
	// BidTTL, MaxBids, MaxDayCounters, MaxFreqCounters and DayTTL are the
	// memory stores' (memory.BidStoreConfig, memory.LedgerConfig).
	BidTTL                          time.Duration
	MaxBids                         int
	MaxDayCounters, MaxFreqCounters int
	DayTTL                          time.Duration
	// BidWindow is how long a bid record may wait to be written. Zero (the
	// default): a bid waits until its record is durable, its fsync shared
	// with the bids and notices of the moment (group commit). Above zero:
	// a bid is answered at once and its record is written within the
	// window, so that a crash loses at most the records of the bids
	// answered in the last BidWindow (plus one commit). Win notices always
	// wait for their accounting to be durable.
	BidWindow time.Duration
	// MemTableSize is the size of Pebble's memtable (default 16 MiB): what
	// is written since the last flush to a table, and the bulk of the
	// write-ahead log.
	MemTableSize uint64
	// MaxWaitingBids is the most records waiting to be written (default
	// 1,000,000); beyond, bids are refused (state_unavailable).
	MaxWaitingBids int
	// Clock is the server clock (default time.Now).
	Clock func() time.Time
	// RetryEvery is how often a write that found the disk full tries again
	// (default 1 s).
	RetryEvery time.Duration
	// WatchEvery is how often the store checks, between writes, that its
	// directory is still there (dirwatch.go; default 250 ms).
	WatchEvery time.Duration
	// FS is the file system (default the operating system's); tests inject
	// failures through it.
	FS vfs.FS
	// SyncHelper has the database's fsyncs done by a helper process
	// (package synchelper: this program started again, so its main must
	// call synchelper.ServeIfHelper first), so that a goroutine waiting
	// for the disk holds no P. Off (the default), fsync runs in-process. A
	// helper that does not start or is lost later leaves fsync in-process,
	// logged.
	SyncHelper bool
	// Logger receives opening, failure and recovery lines (default slog's).
	Logger *slog.Logger
	// Fatal is called when the database cannot go on (a failed fsync, an
	// I/O error other than a full disk): it must not return. The default
	// logs and exits with status 1 (fail-stop: a restart reads back what the
	// disk acknowledged).
	Fatal func(msg string)
}

func (c Config) withDefaults() Config {
	if c.BidTTL <= 0 {
		c.BidTTL = bidder.DefaultBidTTL
	}
	if c.DayTTL <= 0 {
		c.DayTTL = memory.DefaultDayTTL
	}
	c.DayTTL = max(c.DayTTL, memory.MinDayTTL)
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.MemTableSize == 0 {
		c.MemTableSize = 16 << 20
	}
	if c.MaxWaitingBids <= 0 {
		c.MaxWaitingBids = 1_000_000
	}
	if c.RetryEvery <= 0 {
		c.RetryEvery = time.Second
	}
	if c.FS == nil {
		c.FS = vfs.Default
	}
	if c.WatchEvery <= 0 {
		c.WatchEvery = 250 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Fatal == nil {
		log := c.Logger
		c.Fatal = func(msg string) {
			log.Error("disk state cannot go on; stopping (a restart reads back what the disk acknowledged)", "err", msg)
			os.Exit(1)
		}
	}
	return c
}

// Store is the durable state: a bidder.Ledger (Ledger) and a
// bidder.BidStore (Bids) over one Pebble database.
type Store struct {
	cfg     Config
	lock    io.Closer
	helper  *synchelper.Helper // the fsync helper, or nil (synchelper.go)
	hashKey bidder.HashKey
	db      *pebble.DB
	mem     books
	w       *bidWriter
	st      *stall      // writes waiting for room on a full disk
	watch   *dirWatch   // the directory, as opened
	dead    atomic.Bool // the database stopped (Fatal was called)
	stop    chan struct{}
	claims  claimLocks    // of the once-only events (outbox.go)
	outbox  chan struct{} // signalled when the outbox gets records

	syncHook func() // tests: called as the outbox's reader syncs the WAL (outbox.go)

	managedMu sync.Mutex // the managed set's commits, one at a time (managed.go)
}

// memory is the in-memory copy of the books, read back from disk at open.
type books struct {
	ledger *memory.Ledger
	bids   *memory.BidStore
}

// Open locks dir, opens (or creates) its database and reads the books it
// holds back into memory. It fails with ErrLocked when another process
// holds dir, saying which.
func Open(cfg Config) (*Store, error) {
	cfg = cfg.withDefaults()
	if err := cfg.FS.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("disk state: %w", err)
	}
	lock, err := lockDir(cfg.FS, cfg.Dir)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, lock: lock, stop: make(chan struct{}), outbox: make(chan struct{}, 1)}
	s.st = &stall{every: cfg.RetryEvery, stop: s.stop,
		onFull: func(err error) {
			cfg.Logger.Error("disk state: the disk is full; no bids (state_unavailable) and win notices answered 503 until a write goes through",
				"dir", cfg.Dir, "err", err)
		},
		onRoom: func() { cfg.Logger.Info("disk state: writes go through again; bidding", "dir", cfg.Dir) },
	}
	began := time.Now()
	s.startSyncHelper()
	if s.db, err = s.open(); err == nil {
		if s.hashKey, err = s.loadHashKey(); err == nil {
			s.mem, err = s.restore(s.db)
		}
	}
	if err != nil {
		if s.db != nil {
			_ = s.db.Close()
		}
		_ = lock.Close()
		_ = s.closeSyncHelper()
		return nil, fmt.Errorf("disk state %s: %w", cfg.Dir, err)
	}
	days, freq := s.mem.ledger.Sizes()
	cfg.Logger.Info("disk state opened", "dir", cfg.Dir, "bid_records", s.mem.bids.Len(), "day_counters", days,
		"frequency_counters", freq, "sync_helper", s.helper != nil, "took", time.Since(began).Round(time.Millisecond))
	s.w = newBidWriter(s, cfg.BidWindow, cfg.MaxWaitingBids)
	s.watch = newDirWatch(cfg.FS, cfg.Dir)
	go s.watchDir()
	return s, nil
}

// lockDir takes the directory's lock and writes this process's id beside
// it; when another process holds it, it says which.
func lockDir(fs vfs.FS, dir string) (io.Closer, error) {
	pidPath := filepath.Join(dir, "dspd.pid")
	lock, err := fs.Lock(filepath.Join(dir, "dspd.lock"))
	var unwritable *iofs.PathError
	if errors.As(err, &unwritable) {
		// The lock file could not even be created: a read-only or
		// foreign directory, not one another process holds.
		return nil, fmt.Errorf("%w: %s cannot be written (%v): dspd needs a state directory it can write", ErrUnwritable, dir, unwritable.Err)
	}
	if err != nil {
		who := "another process"
		if f, err := fs.Open(pidPath); err == nil {
			b, _ := io.ReadAll(io.LimitReader(f, 32))
			f.Close()
			if pid := strings.TrimSpace(string(b)); pid != "" {
				who = "process " + pid
			}
		}
		return nil, fmt.Errorf("%w: %s is held by %s (see %s); one dspd per state directory: %w", ErrLocked, dir, who, pidPath, err)
	}
	if f, err := fs.Create(pidPath, vfs.WriteCategoryUnspecified); err == nil {
		_, _ = f.Write([]byte(strconv.Itoa(os.Getpid()) + "\n"))
		_ = f.Sync()
		_ = f.Close()
	}
	return lock, nil
}

// open opens the database with the store's options.
func (s *Store) open() (*pebble.DB, error) {
	cache := pebble.NewCache(32 << 20)
	defer cache.Unref()
	return pebble.Open(s.cfg.Dir, &pebble.Options{
		FS:           &fullFS{FS: s.cfg.FS, st: s.st},
		Merger:       adder,
		Cache:        cache,
		MemTableSize: s.cfg.MemTableSize,
		Logger:       pebbleLogger{s},
	})
}

// loadHashKey reads the user hash key the directory keeps, storing a new
// one in a new directory: users stay the same across restarts.
func (s *Store) loadHashKey() (bidder.HashKey, error) {
	v, closer, err := s.db.Get(metaKey("hashkey"))
	if err == nil {
		defer closer.Close()
		return bidder.ParseHashKey(string(v))
	}
	if !errors.Is(err, pebble.ErrNotFound) {
		return bidder.HashKey{}, err
	}
	k := bidder.NewHashKey()
	return k, s.db.Set(metaKey("hashkey"), []byte(k.String()), pebble.Sync)
}

// HashKey returns the user hash key the directory keeps.
func (s *Store) HashKey() bidder.HashKey { return s.hashKey }

// Ledger returns the store's ledger.
func (s *Store) Ledger() bidder.Ledger { return (*ledger)(s) }

// Bids returns the store's bid store.
func (s *Store) Bids() bidder.BidStore { return (*bids)(s) }

// Failures returns how many writes found the disk full so far.
func (s *Store) Failures() int64 { return s.st.events.Load() }

// Unavailable reports whether the store refuses bids and wins: a write is
// waiting for room on a full disk, or the database stopped.
func (s *Store) Unavailable() bool { return s.st.full() || s.dead.Load() }

// Close closes the database and its lock. Writes still waiting for room
// on a full disk give up first (with the disk's error: their notices were
// never acknowledged), so that a stop on a full disk ends: the bid writer
// writes what waits only when it can.
func (s *Store) Close() error {
	close(s.stop)
	s.w.close()
	err := s.db.Close()
	return errors.Join(err, s.lock.Close(), s.closeSyncHelper())
}

// commit writes a batch durably: Pebble shares one fsync among the
// commits in flight (group commit). On a full disk it waits for room. A
// batch committed into a directory that is no longer the store's is not
// durable: the store stops (dirwatch.go) and the commit fails with
// ErrUnavailable, so that nothing written after the removal is
// acknowledged.
func (s *Store) commit(b *pebble.Batch) error {
	defer b.Close()
	if err := s.db.Apply(b, pebble.Sync); err != nil {
		return err
	}
	if err := s.watch.check(); err != nil {
		s.lose(err)
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// available fails fast while the store cannot write.
func (s *Store) available() error {
	if s.Unavailable() {
		return ErrUnavailable
	}
	return nil
}

// pebbleLogger sends Pebble's lines to the server's log; its fatal errors
// stop the store.
type pebbleLogger struct{ s *Store }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.s.cfg.Logger.Debug("pebble: " + fmt.Sprintf(format, args...))
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.s.cfg.Logger.Error("pebble: " + fmt.Sprintf(format, args...))
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	p.s.dead.Store(true)
	p.s.cfg.Fatal("pebble: " + fmt.Sprintf(format, args...))
}
