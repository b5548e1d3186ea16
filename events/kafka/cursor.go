package kafka

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/recbid/dspd/events"
)

// reopenTries bounds how often a segment renamed between the listing and
// the opening (finished, then compressed) is looked for again.
const reopenTries = 8

// cursor reads a directory's records in order from a position, never past
// the durable position. It keeps the segment it reads open, with its
// buffers, from one read to the next: a segment finished or compressed
// meanwhile is read on from the same file (a rename or a removal does not
// change an open file), and a compressed one is never inflated from its
// start again.
type cursor struct {
	dir  string
	pos  events.Position  // where the next record starts
	segs []events.Segment // the last listing, in order
	// skipped is told of segments missing between from and the segment to:
	// deleted before they were shipped.
	skipped func(from events.Position, to uint64)

	f    *os.File // the segment pos.Seq, or nil
	path string
	src  limitReader
	zr   *gzip.Reader  // reused
	zbuf *bufio.Reader // the compressed bytes, reused
	br   *bufio.Reader // the lines, reused
	part []byte        // a line begun in br but not ended yet
}

func newCursor(dir string, pos events.Position, skipped func(events.Position, uint64)) *cursor {
	return &cursor{dir: dir, pos: pos, skipped: skipped, br: bufio.NewReaderSize(nil, 256<<10)}
}

// read calls fn with each whole record from c.pos up to durable (a
// finished segment, one before durable's, to its end), c.pos already past
// the record, until fn returns false. The line is valid during the call
// only.
func (c *cursor) read(durable events.Position, fn func(line []byte) bool) error {
	for {
		if c.f == nil {
			ok, err := c.open()
			if !ok || err != nil {
				return err
			}
		}
		finished := c.pos.Seq < durable.Seq
		c.src.limit = durable.Offset
		if finished {
			c.src.limit = -1
		}
		end, err := c.lines(fn)
		if err != nil || !end || !finished {
			return err
		}
		if len(c.part) > 0 { // a finished segment never ends in half a record
			c.part = c.part[:0]
		}
		next, ok, err := c.next(c.pos.Seq)
		if !ok || err != nil {
			return err // the next segment is not listed yet: stay at the end
		}
		c.close()
		c.pos = events.Position{Seq: next}
	}
}

// lines reads the open segment's lines; true when its end (or the
// durable limit) is reached, false when fn stopped.
func (c *cursor) lines(fn func(line []byte) bool) (bool, error) {
	for {
		chunk, err := c.br.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk
			if len(c.part) > 0 {
				c.part = append(c.part, chunk...)
				line = c.part
			}
			c.pos.Offset += int64(len(line))
			more := fn(line[:len(line)-1])
			c.part = c.part[:0]
			if cap(c.part) > 1<<20 {
				c.part = nil
			}
			if !more {
				return false, nil
			}
		case errors.Is(err, bufio.ErrBufferFull):
			if len(c.part)+len(chunk) > events.MaxLine {
				c.close()
				return false, fmt.Errorf("events/kafka: %s at offset %d: %w", c.path, c.pos.Offset, events.ErrLineTooLong)
			}
			c.part = append(c.part, chunk...)
		case errors.Is(err, io.EOF):
			c.part = append(c.part, chunk...)
			return true, nil
		default:
			path := c.path
			c.close()
			return false, fmt.Errorf("events/kafka: %s: %w", path, err)
		}
	}
}

// open opens the segment holding c.pos, moving on to the next segment
// there is when it no longer exists; false when there is none.
func (c *cursor) open() (bool, error) {
	listed := false
	for tries := 0; ; tries++ {
		i, found := c.lookup(c.pos.Seq)
		if !found && !listed {
			if err := c.list(); err != nil {
				return false, err
			}
			listed = true
			continue
		}
		if !found {
			next, ok := c.after(c.pos.Seq)
			if !ok {
				return false, nil
			}
			if c.pos != (events.Position{}) {
				c.skipped(c.pos, next)
			}
			c.pos = events.Position{Seq: next}
			continue
		}
		err := c.openFile(c.segs[i])
		if errors.Is(err, fs.ErrNotExist) && tries < reopenTries {
			// Renamed since the listing (finished, or compressed and the
			// plain file removed): list again.
			if err := c.list(); err != nil {
				return false, err
			}
			listed = true
			continue
		}
		return err == nil, err
	}
}

// openFile opens seg at c.pos.Offset, in uncompressed bytes.
func (c *cursor) openFile(seg events.Segment) error {
	f, err := os.Open(seg.Path)
	if err != nil {
		return fmt.Errorf("events/kafka: %w", err)
	}
	var r io.Reader = f
	if seg.Compressed {
		if c.zbuf == nil {
			c.zbuf = bufio.NewReaderSize(f, 64<<10)
		} else {
			c.zbuf.Reset(f)
		}
		if c.zr == nil {
			c.zr, err = gzip.NewReader(c.zbuf)
		} else {
			err = c.zr.Reset(c.zbuf)
		}
		if err == nil {
			_, err = io.CopyN(io.Discard, c.zr, c.pos.Offset)
		}
		r = c.zr
	} else if c.pos.Offset > 0 {
		_, err = f.Seek(c.pos.Offset, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("events/kafka: %s at offset %d: %w", seg.Path, c.pos.Offset, err)
	}
	c.f, c.path = f, seg.Path
	c.src = limitReader{r: r, n: c.pos.Offset, limit: -1}
	c.br.Reset(&c.src)
	c.part = c.part[:0]
	return nil
}

// seek moves the cursor to p; the segment is opened at the next read.
func (c *cursor) seek(p events.Position) {
	c.close()
	c.pos = p
}

func (c *cursor) close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
	c.part = c.part[:0]
}

func (c *cursor) list() error {
	segs, err := events.List(c.dir)
	if err != nil {
		return fmt.Errorf("events/kafka: %w", err)
	}
	c.segs = segs
	return nil
}

// lookup finds segment seq in the listing.
func (c *cursor) lookup(seq uint64) (int, bool) {
	return slices.BinarySearchFunc(c.segs, seq, func(s events.Segment, seq uint64) int {
		switch {
		case s.Seq < seq:
			return -1
		case s.Seq > seq:
			return 1
		}
		return 0
	})
}

// after returns the first listed segment after seq.
func (c *cursor) after(seq uint64) (uint64, bool) {
	i, found := c.lookup(seq)
	if found {
		i++
	}
	if i < len(c.segs) {
		return c.segs[i].Seq, true
	}
	return 0, false
}

// next returns the segment after seq, listing the directory again when
// the last listing ends with seq; false when there is none yet.
func (c *cursor) next(seq uint64) (uint64, bool, error) {
	next, ok := c.after(seq)
	if !ok {
		if err := c.list(); err != nil {
			return 0, false, err
		}
		if next, ok = c.after(seq); !ok {
			return 0, false, nil
		}
	}
	if next != seq+1 {
		c.skipped(events.Position{Seq: seq + 1}, next)
	}
	return next, true, nil
}

// limitReader reads r, stopping at limit (uncompressed) bytes from the
// segment's start when limit >= 0: the durable size of the segment being
// written, whose later bytes may not be whole or synced.
type limitReader struct {
	r     io.Reader
	n     int64 // bytes from the segment's start read so far
	limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.limit >= 0 {
		if l.n >= l.limit {
			return 0, io.EOF
		}
		if rest := l.limit - l.n; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	k, err := l.r.Read(p)
	l.n += int64(k)
	return k, err
}
