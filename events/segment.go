package events

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The names of a directory's files.
const (
	extOpen     = ".jsonl.open" // the segment being written
	extPlain    = ".jsonl"      // a finished segment
	extGzip     = ".jsonl.gz"   // a finished segment, compressed
	extTmp      = ".tmp"        // a compressed segment or a position being written
	lockName    = "events.lock"
	shippedName = "shipped" // the shipping position (position.go)
	seqDigits   = 20
)

// Segment is one segment file of a directory.
type Segment struct {
	Seq        uint64
	Path       string
	Open       bool  // being written: read only its whole lines
	Compressed bool  // gzip
	Size       int64 // bytes on disk (compressed, for a compressed one)
}

func segmentName(seq uint64, ext string) string {
	s := strconv.FormatUint(seq, 10)
	return strings.Repeat("0", max(0, seqDigits-len(s))) + s + ext
}

// parseSegmentName returns the sequence number and extension of a
// segment's file name, or false for any other file.
func parseSegmentName(name string) (uint64, string, bool) {
	for _, ext := range [...]string{extOpen, extGzip, extPlain} {
		num, ok := strings.CutSuffix(name, ext)
		if !ok || len(num) != seqDigits {
			continue
		}
		seq, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return 0, "", false
		}
		return seq, ext, true
	}
	return 0, "", false
}

// List returns dir's segments in order. A segment both finished and
// compressed (its plain file not yet removed after compression) is listed
// once, compressed: the compressed file appears only once it is whole.
func List(dir string) ([]Segment, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	bySeq := map[uint64]Segment{}
	for _, e := range ents {
		seq, ext, ok := parseSegmentName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile (retention)
		}
		seg := Segment{Seq: seq, Path: filepath.Join(dir, e.Name()), Open: ext == extOpen,
			Compressed: ext == extGzip, Size: info.Size()}
		if old, ok := bySeq[seq]; ok && (old.Compressed || old.Open) {
			continue
		}
		bySeq[seq] = seg
	}
	out := make([]Segment, 0, len(bySeq))
	for _, s := range bySeq {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Segment) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	return out, nil
}

// MaxLine is the longest record a reader takes (an audit record holds two
// campaigns).
const MaxLine = 4 << 20

// ErrLineTooLong is returned by Read for a line longer than MaxLine.
var ErrLineTooLong = errors.New("events: record longer than the longest a reader takes")

// Read calls fn with each whole line of seg that starts at or after offset
// from (in uncompressed bytes), its newline cut, and the offset just past
// it, stopping at limit when limit >= 0 (the writer's synced size of an
// open segment). The line is valid only during the call. An open segment's
// last line without its newline (still being written, or torn) is not
// read. fn's error stops the reading and is returned.
func Read(seg Segment, from, limit int64, fn func(line []byte, next int64) error) error {
	f, err := os.Open(seg.Path)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if seg.Compressed {
		zr, err := gzip.NewReader(bufio.NewReaderSize(f, 64<<10))
		if err != nil {
			return fmt.Errorf("events: %s: %w", seg.Path, err)
		}
		defer zr.Close()
		r = zr
		if _, err := io.CopyN(io.Discard, zr, from); err != nil {
			return fmt.Errorf("events: %s: offset %d: %w", seg.Path, from, err)
		}
	} else if from > 0 {
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return fmt.Errorf("events: %w", err)
		}
	}
	if limit >= 0 {
		r = io.LimitReader(r, limit-from)
	}
	return readLines(bufio.NewReaderSize(r, 256<<10), from, fn)
}

// readLines calls fn with every whole line of r.
func readLines(br *bufio.Reader, off int64, fn func(line []byte, next int64) error) error {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk
			if long != nil {
				long = append(long, chunk...)
				line = long
			}
			off += int64(len(line))
			if e := fn(line[:len(line)-1], off); e != nil {
				return e
			}
			long = nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(long)+len(chunk) > MaxLine {
				return ErrLineTooLong
			}
			long = append(long, chunk...)
		case errors.Is(err, io.EOF):
			return nil // a last line without its newline is not whole
		default:
			return fmt.Errorf("events: %w", err)
		}
	}
}

// wholeSize returns how many leading bytes of the open segment f are whole
// records: lines ending in a newline, each a JSON object (so that a crash
// that left a line torn, or blocks of zeros the file system added past
// what was synced, is cut back to the last whole record).
func wholeSize(f *os.File) (int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	var good int64
	err := readLines(bufio.NewReaderSize(f, 256<<10), 0, func(line []byte, next int64) error {
		if !wholeRecord(line) {
			return errStop
		}
		good = next
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return 0, err
	}
	return good, nil
}

var errStop = errors.New("stop")

// wholeRecord reports whether a line is one JSON object.
func wholeRecord(line []byte) bool {
	line = bytes.TrimRight(line, "\r")
	return len(line) >= 2 && line[0] == '{' && line[len(line)-1] == '}' && json.Valid(line)
}
