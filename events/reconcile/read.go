package reconcile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/recbid/dspd/events"
)

// ReadDirs calls fn with every whole record of the directories' segments
// (plain, compressed or being written: an open segment's torn last line is
// not read), directory by directory, each in its order. An error of fn
// stops the reading and is returned naming the segment and the line. A
// segment finished or compressed while the directories are read is read
// under its new name; one the retention deleted is gone.
func ReadDirs(ctx context.Context, dirs []string, fn func(line []byte) error) error {
	for _, dir := range dirs {
		segs, err := events.List(dir)
		if err != nil {
			return fmt.Errorf("reconcile: %w", err)
		}
		for i := 0; i < len(segs); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			seg := segs[i]
			n, err := readSegment(seg, fn)
			if errors.Is(err, fs.ErrNotExist) && n == 0 {
				// Renamed (finished, compressed) or deleted since listed:
				// what follows it is listed again, it under its new name.
				again, lerr := events.List(dir)
				if lerr != nil {
					return fmt.Errorf("reconcile: %w", lerr)
				}
				rest := from(again, seg.Seq)
				if len(rest) > 0 && rest[0].Path == seg.Path {
					rest = rest[1:]
				}
				segs = append(segs[:i+1], rest...)
				continue
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// from returns the segments of segs from seq on.
func from(segs []events.Segment, seq uint64) []events.Segment {
	for i, s := range segs {
		if s.Seq >= seq {
			return segs[i:]
		}
	}
	return nil
}

// readSegment calls fn with each whole line of seg and returns how many it
// read.
func readSegment(seg events.Segment, fn func(line []byte) error) (int, error) {
	n := 0
	err := events.Read(seg, 0, -1, func(line []byte, _ int64) error {
		n++
		if err := fn(line); err != nil {
			return fmt.Errorf("%s line %d: %w", seg.Path, n, err)
		}
		return nil
	})
	return n, err
}

// ReadLines calls fn with every line of r, a stream of JSON lines (gzip
// compressed or not: a dump of a Kafka topic, say), named name in errors.
// Empty lines are skipped, a carriage return before a newline is cut,
// and the last line is read even without its newline. An error of fn
// stops the reading and is returned naming the line.
func ReadLines(r io.Reader, name string, fn func(line []byte) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("reconcile: %s: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 256<<10)
	}
	n := 0
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > events.MaxLine {
				return fmt.Errorf("reconcile: %s line %d: %w", name, n+1, events.ErrLineTooLong)
			}
			long = append(long, chunk...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reconcile: %s: %w", name, err)
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if len(line) > 0 {
			n++
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > 0 {
			if ferr := fn(line); ferr != nil {
				return fmt.Errorf("%s line %d: %w", name, n, ferr)
			}
		}
		if err != nil {
			return nil // io.EOF
		}
	}
}
