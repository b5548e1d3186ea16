package kafka

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/events"
)

// segName is a segment's file name, as package events names it.
func segName(seq uint64, ext string) string { return fmt.Sprintf("%020d%s", seq, ext) }

// writeSeg writes a segment file of the given lines (each ended by a
// newline) and tail (not ended), compressed for a ".jsonl.gz" ext.
func writeSeg(t *testing.T, dir string, seq uint64, ext string, lines []string, tail string) string {
	t.Helper()
	data := tail
	if len(lines) > 0 {
		data = strings.Join(lines, "\n") + "\n" + tail
	}
	path := filepath.Join(dir, segName(seq, ext))
	f, err := os.Create(path)
	require.NoError(t, err)
	if ext == ".jsonl.gz" {
		zw := gzip.NewWriter(f)
		_, err = zw.Write([]byte(data))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
	} else {
		_, err = f.WriteString(data)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
	return path
}

// lines returns n records' lines named by prefix.
func lines(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(`{"type":"bid","bidid":"%s%d"}`, prefix, i))
	}
	return out
}

func size(ls []string) int64 {
	var n int64
	for _, l := range ls {
		n += int64(len(l)) + 1
	}
	return n
}

// readAll reads what the cursor gives up to durable.
func readAll(t *testing.T, c *cursor, durable events.Position) []string {
	t.Helper()
	var out []string
	require.NoError(t, c.read(durable, func(line []byte) bool {
		out = append(out, string(line))
		return true
	}))
	return out
}

func TestCursorReads(t *testing.T) {
	a, b, o := lines("a", 3), lines("b", 4), lines("o", 3)
	durable := events.Position{Seq: 3, Offset: size(o[:2])} // the open segment's third line is not synced yet
	cat := func(parts ...[]string) []string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return all
	}
	for _, tc := range []struct {
		name string
		from events.Position
		want []string
	}{
		{"from the start", events.Position{}, cat(a, b, o[:2])},
		{"inside a compressed segment", events.Position{Seq: 1, Offset: size(a[:1])}, cat(a[1:], b, o[:2])},
		{"at a compressed segment's end", events.Position{Seq: 1, Offset: size(a)}, cat(b, o[:2])},
		{"inside a plain one", events.Position{Seq: 2, Offset: size(b[:3])}, cat(b[3:], o[:2])},
		{"inside the open one", events.Position{Seq: 3, Offset: size(o[:1])}, o[1:2]},
		{"at the durable position", durable, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSeg(t, dir, 1, ".jsonl.gz", a, "")
			writeSeg(t, dir, 2, ".jsonl", b, "")
			writeSeg(t, dir, 3, ".jsonl.open", o, "")
			c := newCursor(dir, tc.from, func(events.Position, uint64) { t.Error("nothing is missing") })
			defer c.close()
			if tc.want == nil {
				assert.Empty(t, readAll(t, c, durable))
			} else {
				assert.Equal(t, tc.want, readAll(t, c, durable))
			}
			assert.Equal(t, durable, c.pos)

			// The writer syncs its third line: read on.
			durable := events.Position{Seq: 3, Offset: size(o)}
			assert.Equal(t, o[2:], readAll(t, c, durable))
			assert.Equal(t, durable, c.pos)
		})
	}
}

// TestCursorRenames: a segment finished and compressed while it is read
// is read on from the file open; one compressed between the listing and
// its opening is found again, at the same uncompressed offset.
func TestCursorRenames(t *testing.T) {
	a, b := lines("a", 4), lines("b", 2)
	t.Run("while open", func(t *testing.T) {
		dir := t.TempDir()
		open := writeSeg(t, dir, 1, ".jsonl.open", a, "")
		c := newCursor(dir, events.Position{}, nil)
		defer c.close()
		assert.Equal(t, a[:2], readAll(t, c, events.Position{Seq: 1, Offset: size(a[:2])}))
		// Finished, the next begun, then compressed and the plain file removed.
		plain := filepath.Join(dir, segName(1, ".jsonl"))
		require.NoError(t, os.Rename(open, plain))
		writeSeg(t, dir, 2, ".jsonl.open", b, "")
		writeSeg(t, dir, 1, ".jsonl.gz", a, "")
		require.NoError(t, os.Remove(plain))
		durable := events.Position{Seq: 2, Offset: size(b)}
		assert.Equal(t, append(a[2:], b...), readAll(t, c, durable))
		assert.Equal(t, durable, c.pos)
	})
	t.Run("before opening", func(t *testing.T) {
		dir := t.TempDir()
		plain := writeSeg(t, dir, 1, ".jsonl", a, "")
		writeSeg(t, dir, 2, ".jsonl.open", b, "")
		c := newCursor(dir, events.Position{Seq: 1, Offset: size(a[:3])}, nil)
		defer c.close()
		require.NoError(t, c.list()) // lists the plain file
		writeSeg(t, dir, 1, ".jsonl.gz", a, "")
		require.NoError(t, os.Remove(plain))
		durable := events.Position{Seq: 2, Offset: size(b[:1])}
		assert.Equal(t, append(a[3:], b[0]), readAll(t, c, durable))
		assert.Equal(t, durable, c.pos)
	})
}

// TestCursorEnds: a finished segment is left for the next once read to
// its end (its torn tail not a record), and a missing segment is
// reported and passed.
func TestCursorEnds(t *testing.T) {
	dir := t.TempDir()
	a, c3 := lines("a", 2), lines("c", 2)
	writeSeg(t, dir, 1, ".jsonl", a, `{"type":"bid","bi`)
	writeSeg(t, dir, 3, ".jsonl.open", c3, "")
	var skipped []string
	c := newCursor(dir, events.Position{Seq: 1}, func(from events.Position, to uint64) {
		skipped = append(skipped, fmt.Sprint(from, "→", to))
	})
	defer c.close()
	durable := events.Position{Seq: 3, Offset: size(c3)}
	assert.Equal(t, append(a, c3...), readAll(t, c, durable))
	assert.Equal(t, durable, c.pos)
	assert.Equal(t, []string{"{2 0}→3"}, skipped)

	// A finished segment whose next is not there yet: stay at its end.
	dir = t.TempDir()
	writeSeg(t, dir, 1, ".jsonl", a, "")
	c = newCursor(dir, events.Position{}, nil)
	defer c.close()
	assert.Equal(t, a, readAll(t, c, events.Position{Seq: 2}))
	assert.Equal(t, events.Position{Seq: 1, Offset: size(a)}, c.pos)
	writeSeg(t, dir, 2, ".jsonl.open", nil, "")
	assert.Empty(t, readAll(t, c, events.Position{Seq: 2}))
	assert.Equal(t, events.Position{Seq: 2}, c.pos)
}
