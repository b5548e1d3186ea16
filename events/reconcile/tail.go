package reconcile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/recbid/dspd/events"
)

// Filter chooses records; its zero fields choose every record.
type Filter struct {
	Type     events.Type // 0: any
	Campaign string
	Exchange string
	Since    time.Time // records whose time is at or after it (zero: any)
}

// Match reports whether f chooses r.
func (f Filter) Match(r *Record) bool {
	return (f.Type == 0 || r.Type == f.Type) && (f.Campaign == "" || r.Campaign == f.Campaign) &&
		(f.Exchange == "" || r.Exchange == f.Exchange) && (f.Since.IsZero() || !r.Time.Before(f.Since))
}

// TailConfig configures Tail.
type TailConfig struct {
	// Dirs are the event log directories, read one after the other.
	Dirs   []string
	Filter Filter
	// Follow, above zero, keeps reading the records written after the
	// last, looking this often, until the context ends.
	Follow time.Duration
}

// Tail writes the records of the directories that the filter chooses to
// w, as they are, one a line: directory by directory, each in its order;
// then, when following, the new records of each as they come (written, not
// necessarily synced yet). It returns when all are written, or, following,
// when ctx ends (nil). A record it cannot read stops it with an error
// naming its segment and place.
func Tail(ctx context.Context, cfg TailConfig, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	cursors := make([]cursor, len(cfg.Dirs))
	for i, d := range cfg.Dirs {
		cursors[i].dir = d
	}
	var tick *time.Ticker
	if cfg.Follow > 0 {
		tick = time.NewTicker(cfg.Follow)
		defer tick.Stop()
	}
	for {
		for i := range cursors {
			if err := cursors[i].pass(ctx, cfg.Filter, bw); err != nil {
				_ = bw.Flush()
				if cfg.Follow > 0 && ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("reconcile: %w", err)
		}
		if tick == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// cursor is where Tail is in one directory: the segment seq, up to off.
type cursor struct {
	dir string
	seq uint64
	off int64
}

// pass writes the directory's records past the cursor. A segment renamed
// (finished, compressed) between listing and reading is read again under
// its new name, from where the cursor is.
func (c *cursor) pass(ctx context.Context, f Filter, w *bufio.Writer) error {
	for range 4 {
		moved, err := c.read(ctx, f, w)
		if !moved {
			return err
		}
	}
	return fmt.Errorf("reconcile: %s: segments keep moving while read", c.dir)
}

func (c *cursor) read(ctx context.Context, f Filter, w *bufio.Writer) (moved bool, err error) {
	segs, err := events.List(c.dir)
	if err != nil {
		return false, fmt.Errorf("reconcile: %w", err)
	}
	for _, seg := range segs {
		if seg.Seq < c.seq {
			continue
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		from := int64(0)
		if seg.Seq == c.seq {
			from = c.off
		}
		var bad error
		err := events.Read(seg, from, -1, func(line []byte, next int64) error {
			r, err := ParseRecord(line)
			if err != nil {
				bad = fmt.Errorf("reconcile: %s at byte %d: %w", seg.Path, c.offset(seg.Seq, from), err)
				return bad
			}
			if f.Match(&r) {
				_, _ = w.Write(line)
				if err := w.WriteByte('\n'); err != nil {
					bad = fmt.Errorf("reconcile: %w", err)
					return bad
				}
			}
			c.seq, c.off = seg.Seq, next
			return nil
		})
		switch {
		case bad != nil:
			return false, bad
		case errors.Is(err, fs.ErrNotExist):
			return true, nil
		case err != nil:
			return false, fmt.Errorf("reconcile: %w", err)
		}
	}
	return false, nil
}

// offset returns where the cursor's next record starts in segment seq,
// read from from.
func (c *cursor) offset(seq uint64, from int64) int64 {
	if c.seq == seq {
		return c.off
	}
	return from
}
