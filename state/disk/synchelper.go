package disk

import (
	"log/slog"
	"runtime"

	"github.com/recbid/dspd/state/disk/synchelper"
)

// startSyncHelper starts the fsync helper process when the configuration
// asks for it (Config.SyncHelper), and has it do the database's syncs. A
// helper that does not start, or is lost later, leaves the syncs
// in-process, as without it: logged, and with at least two Ps, so that an
// fsync does not hold the only one (docs/operations.md, "One CPU").
func (s *Store) startSyncHelper() {
	if !s.cfg.SyncHelper {
		return
	}
	log := s.cfg.Logger
	h, err := synchelper.Start(synchelper.Config{Logger: log, OnLost: func(error) { syncingInProcess(log) }})
	if err != nil {
		log.Warn("disk state: the sync helper did not start; fsync runs in-process", "err", err)
		syncingInProcess(log)
		return
	}
	s.helper = h
	s.cfg.FS = h.FS(s.cfg.FS)
}

// syncingInProcess gives the scheduler a second P, as cmd/dspd does
// without the helper: with one, the goroutine in fsync holds it and the
// whole server waits for the disk.
func syncingInProcess(log *slog.Logger) {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		log.Info("disk state: GOMAXPROCS raised to 2, so that an fsync never holds the only P", "was", n)
	}
}

// closeSyncHelper stops the helper, if one runs.
func (s *Store) closeSyncHelper() error {
	if s.helper == nil {
		return nil
	}
	return s.helper.Close()
}

// SyncHelper returns the helper doing the store's fsyncs, or nil: others
// writing files beside the store (the event log) can have it do theirs.
func (s *Store) SyncHelper() *synchelper.Helper { return s.helper }
