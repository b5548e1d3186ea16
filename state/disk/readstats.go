package disk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/recbid/dspd/bidder"
)

// ReadDayStats reads one UTC day's budget counters from the state
// directory of a stopped dspd: campaign → exchange ("" for the counters of
// all exchanges) → bids, wins and spend, as the ledger holds them. It
// opens the database read only (the write-ahead log is replayed in memory;
// nothing is written) and does not hold dspd's lock: it tries it, without
// waiting, and lets it go at once, refusing with ErrLocked a directory a
// running dspd holds, whose counters move and whose write-ahead log it
// owns. The counters of a day past the state's -day-ttl are deleted: the
// map is then empty.
//
// The directory must be one dspd made (it holds dspd.lock). Pebble's own
// lock is held while the database is read, so a dspd started meanwhile
// fails to open it rather than sharing it. Within a process that has the
// directory open as a Store, dir must be spelled as its Config.Dir: the
// lock is a POSIX record lock, the process's own, and only Pebble's table
// of the names it locked tells it is held (under another spelling, the
// probe would take it and, letting it go, release the Store's).
func ReadDayStats(dir string, day bidder.Day) (map[string]map[string]bidder.DayStats, error) {
	if err := checkStopped(dir); err != nil {
		return nil, err
	}
	db, err := pebble.Open(dir, &pebble.Options{ReadOnly: true, Merger: adder, FS: vfs.Default, Logger: quietPebble{}})
	if err != nil {
		return nil, fmt.Errorf("disk state %s: read only: %w", dir, err)
	}
	out := map[string]map[string]bidder.DayStats{}
	lower := dayKey(day, "", "")[:5]
	upper := []byte{kindDay + 1}
	if lead := binary.BigEndian.Uint32(lower[1:]); lead < math.MaxUint32 {
		upper = prefixUpTo(kindDay, lead+1)
	}
	err = scan(db, lower, upper, func(k, v []byte) error {
		_, campaign, exchange, err := parseDayKey(k)
		if err != nil {
			return err
		}
		n, err := readSums(v, 3)
		if err != nil {
			return err
		}
		byExchange := out[campaign]
		if byExchange == nil {
			byExchange = map[string]bidder.DayStats{}
			out[campaign] = byExchange
		}
		byExchange[exchange] = bidder.DayStats{Bids: n[0], Wins: n[1], Spend: bidder.Micros(n[2])}
		return nil
	})
	err = errors.Join(err, db.Close())
	if err != nil {
		return nil, fmt.Errorf("disk state %s: day %s: %w", dir, day, err)
	}
	return out, nil
}

// checkStopped fails with ErrLocked when a process holds dir's lock: it
// tries the lock dspd takes (lockDir: the same file, the same kind of lock)
// without waiting, and lets it go at once. A directory without dspd.lock is
// not a state directory.
func checkStopped(dir string) error {
	path := filepath.Join(dir, "dspd.lock")
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("disk state: %s is not a dspd state directory (it has no dspd.lock)", dir)
		}
		return fmt.Errorf("disk state: %w", err)
	}
	lock, err := vfs.Default.Lock(path)
	if err != nil {
		who := "another process"
		if b, rerr := os.ReadFile(filepath.Join(dir, "dspd.pid")); rerr == nil && len(b) < 32 {
			if pid := strings.TrimSpace(string(b)); pid != "" {
				who = "process " + pid
			}
		}
		return fmt.Errorf("%w: %s is held by %s (a running dspd): stop dspd first or reconcile against its admin listener: %w",
			ErrLocked, dir, who, err)
	}
	return lock.Close()
}

// quietPebble drops Pebble's information lines (a read-only open replays
// the write-ahead log and says so) and passes on its errors.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any) {}

func (quietPebble) Errorf(format string, args ...any) { pebble.DefaultLogger.Errorf(format, args...) }

func (quietPebble) Fatalf(format string, args ...any) { pebble.DefaultLogger.Fatalf(format, args...) }
