package events

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/recbid/dspd/bidder"
)

// open finds the segment a crash or a stop left open (or starts the first),
// cuts it back to its whole records, and writes the outbox's records it
// does not hold yet.
func (l *Log) open() error {
	segs, err := List(l.cfg.Dir)
	if err != nil {
		return err
	}
	if err := l.loadShipped(); err != nil {
		return err
	}
	var open *Segment
	next := uint64(1)
	for i := range segs {
		next = max(next, segs[i].Seq+1)
		if segs[i].Open {
			if open != nil { // two open segments: finish the older, whole
				if err := l.finishFile(*open); err != nil {
					return err
				}
			}
			open = &segs[i]
		}
	}
	if open == nil {
		return l.create(next)
	}
	f, err := os.OpenFile(open.Path, os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	good, err := wholeSize(f)
	if err == nil && good < open.Size {
		l.cfg.Logger.Warn("event log: the open segment ended in a torn record (a crash); cut back to its last whole record",
			"segment", open.Path, "size", open.Size, "kept", good)
		if err = f.Truncate(good); err == nil {
			err = f.Sync()
		}
	}
	if err == nil {
		_, err = f.Seek(good, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("events: %s: %w", open.Path, err)
	}
	l.f, l.fsync, l.seq, l.size = f, l.track(f), open.Seq, good
	l.first = firstTime(open.Path, l.cfg.Clock())
	l.durable.Store(&Position{Seq: l.seq, Offset: l.size})
	return l.recover()
}

// track returns what syncs and closes f, a segment being written.
func (l *Log) track(f *os.File) SyncCloser {
	if l.cfg.Files == nil {
		return f
	}
	return l.cfg.Files.Track(f, f.Name())
}

// create starts segment seq.
func (l *Log) create(seq uint64) error {
	path := filepath.Join(l.cfg.Dir, segmentName(seq, extOpen))
	var f *os.File
	err := l.retry(func() (err error) {
		f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		return err
	})
	if err == nil {
		err = l.retry(func() error { return syncDir(l.cfg.Dir) })
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return fmt.Errorf("events: %s: %w", path, err)
	}
	l.f, l.fsync, l.seq, l.size, l.first = f, l.track(f), seq, 0, time.Time{}
	l.durable.Store(&Position{Seq: seq, Offset: 0})
	return nil
}

// rotate finishes the segment being written and starts the next.
func (l *Log) rotate() error {
	seg := Segment{Seq: l.seq, Path: filepath.Join(l.cfg.Dir, segmentName(l.seq, extOpen)), Open: true, Size: l.size}
	if err := l.fsync.Close(); err != nil { // written and synced already
		return l.fail("close", err)
	}
	if err := l.finishFile(seg); err != nil {
		return l.fail("finish", err)
	}
	return l.create(l.seq + 1)
}

// finishFile renames a synced open segment to its finished name and
// queues it for compression.
func (l *Log) finishFile(seg Segment) error {
	done := filepath.Join(l.cfg.Dir, segmentName(seg.Seq, extPlain))
	if err := l.retry(func() error { return os.Rename(seg.Path, done) }); err != nil {
		return err
	}
	if err := l.retry(func() error { return syncDir(l.cfg.Dir) }); err != nil {
		return err
	}
	l.st.finished.Add(1)
	l.cfg.Logger.Debug("event log: segment finished", "segment", done, "bytes", seg.Size)
	if l.cfg.Compress {
		select {
		case l.compress <- Segment{Seq: seg.Seq, Path: done}:
		default: // a backlog: compressed at the next start
		}
	}
	return nil
}

// compressor gzips finished segments one at a time, off the writer's way:
// the compressed file is written aside, synced, renamed into place, and
// only then is the plain one removed. At start it compresses what an
// earlier run left plain.
func (l *Log) compressor() {
	defer close(l.compressed)
	if l.cfg.Compress {
		if segs, err := List(l.cfg.Dir); err == nil {
			for _, s := range segs {
				if !s.Open && !s.Compressed {
					l.gzip(s)
				}
			}
		}
	}
	for s := range l.compress {
		l.gzip(s)
	}
}

func (l *Log) gzip(s Segment) {
	final := filepath.Join(l.cfg.Dir, segmentName(s.Seq, extGzip))
	tmp := final + extTmp
	err := func() error {
		in, err := os.Open(s.Path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(tmp)
		if err != nil {
			return err
		}
		zw := gzip.NewWriter(out)
		_, err = io.Copy(zw, in)
		err = errors.Join(err, zw.Close(), out.Sync(), out.Close())
		if err != nil {
			return err
		}
		if err := os.Rename(tmp, final); err != nil {
			return err
		}
		if err := syncDir(l.cfg.Dir); err != nil {
			return err
		}
		return os.Remove(s.Path)
	}()
	if err != nil {
		_ = os.Remove(tmp)
		l.cfg.Logger.Warn("event log: a finished segment stays uncompressed", "segment", s.Path, "err", err)
		return
	}
	l.st.compressed.Add(1)
}

// retain deletes the finished segments past the retention, oldest first,
// never one not wholly shipped while KeepUnshipped; and measures the spool.
func (l *Log) retain() {
	segs, err := List(l.cfg.Dir)
	if err != nil {
		return
	}
	shipped := l.Shipped()
	var total, unshipped int64
	for _, s := range segs {
		total += s.Size
		if !s.Before(shipped) {
			unshipped += s.Size
		}
	}
	now := l.cfg.Clock()
	for _, s := range segs {
		if s.Open || (l.cfg.KeepUnshipped && s.Seq >= shipped.Seq) {
			break
		}
		info, err := os.Stat(s.Path)
		if err != nil {
			continue
		}
		old := now.Sub(info.ModTime()) > l.cfg.RetentionAge
		big := l.cfg.RetentionBytes > 0 && total > l.cfg.RetentionBytes
		if !old && !big {
			break
		}
		if err := os.Remove(s.Path); err != nil {
			continue
		}
		total -= s.Size
		l.st.deleted.Add(1)
	}
	l.st.dirBytes.Store(total)
	l.st.spoolBytes.Store(unshipped)
}

// Before reports whether segment s lies wholly before position p.
func (s Segment) Before(p Position) bool { return s.Seq < p.Seq }

// recover writes the outbox's records that the open segment does not hold:
// those committed by the state but not acknowledged when the process
// stopped. Those it already holds were written and synced before a crash
// took the acknowledgement; they are only acknowledged.
func (l *Log) recover() error {
	if l.cfg.Outbox == nil {
		return nil
	}
	type pending struct {
		line  []byte
		found bool
	}
	byKey := map[recordKey]*pending{}
	var ids []bidder.OutboxID
	if err := l.cfg.Outbox.PendingEvents(1<<30, func(id bidder.OutboxID, line []byte) {
		byKey[keyOf(line)] = &pending{line: bytes.Clone(line)}
		ids = append(ids, id)
	}); err != nil {
		return fmt.Errorf("events: the state's outbox: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	seg := Segment{Seq: l.seq, Path: filepath.Join(l.cfg.Dir, segmentName(l.seq, extOpen)), Open: true}
	found := 0
	err := Read(seg, 0, l.size, func(line []byte, _ int64) error {
		if p := byKey[keyOf(line)]; p != nil && !p.found {
			p.found = true
			found++
		}
		return nil
	})
	if err != nil {
		return err
	}
	var buf []byte
	for _, p := range byKey {
		if !p.found {
			buf = append(buf, p.line...)
			if t, ok := lineType(p.line); ok {
				l.st.records[t].Add(1)
			}
		}
	}
	if len(buf) > 0 {
		if err := l.write(buf); err != nil {
			return err
		}
	}
	if err := l.cfg.Outbox.AckEvents(ids); err != nil {
		return fmt.Errorf("events: acknowledge the state's outbox: %w", err)
	}
	l.cfg.Logger.Info("event log: records the state committed before a stop, taken from its outbox",
		"pending", len(ids), "already_written", found, "written_now", len(ids)-found)
	return nil
}

// recordKey is what makes a once-only record unique: its type and bid.
type recordKey struct{ typ, bid string }

func keyOf(line []byte) recordKey {
	var k struct {
		Type  string `json:"type"`
		BidID string `json:"bidid"`
	}
	_ = json.Unmarshal(line, &k)
	return recordKey{k.Type, k.BidID}
}

// firstTime returns the time of a segment's first record, or def.
func firstTime(path string, def time.Time) time.Time {
	f, err := os.Open(path)
	if err != nil {
		return def
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(f, buf)
	line, _, ok := bytes.Cut(buf[:n], []byte("\n"))
	if !ok {
		return def
	}
	var r struct {
		Time time.Time `json:"time"`
	}
	if json.Unmarshal(line, &r) != nil || r.Time.IsZero() {
		return def
	}
	return r.Time
}

// lineType reads the type of an encoded record.
func lineType(line []byte) (Type, bool) {
	const lead = `{"v":1,"type":"`
	if !bytes.HasPrefix(line, []byte(lead)) {
		return 0, false
	}
	name, _, ok := bytes.Cut(line[len(lead):], []byte(`"`))
	if !ok {
		return 0, false
	}
	return ParseType(string(name))
}

// syncDir syncs a directory, so that a rename or a creation in it is
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
