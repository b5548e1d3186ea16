package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/smallfs"
)

const testInstance = "dspd-1"

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// atTestTime is a server clock that agrees with the test records' times: a
// test that reopens a log whose records carry testTime, on the wall clock,
// would see its segment finish for age (SegmentAge) under it once the day
// passed testTime.
func atTestTime() time.Time { return testTime }

func open(t *testing.T, cfg Config) *Log {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	if cfg.Instance == "" {
		cfg.Instance = testInstance
	}
	if cfg.Fatal == nil {
		cfg.Fatal = func(msg string) { t.Errorf("fatal: %s", msg) }
	}
	l, err := Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// bidRecord returns a bid record whose bid id holds n, of the tests'
// instance (so that its length is its length in the log).
func bidRecord(n int) *Record {
	r := testRecord(TypeBid)
	r.Instance = testInstance
	r.BidID = bidder.BidID{0xff, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	return &r
}

// readAll returns every whole record of dir, in order, decoded.
func readAll(t *testing.T, dir string) []map[string]any {
	t.Helper()
	segs, err := List(dir)
	require.NoError(t, err)
	var out []map[string]any
	for _, s := range segs {
		require.NoError(t, Read(s, 0, -1, func(line []byte, _ int64) error {
			var m map[string]any
			require.NoError(t, json.Unmarshal(line, &m), "%s: %q", s.Path, line)
			out = append(out, m)
			return nil
		}))
	}
	return out
}

func bidIDs(recs []map[string]any) []string {
	var ids []string
	for _, r := range recs {
		ids = append(ids, fmt.Sprint(r["type"], ":", r["bidid"]))
	}
	return ids
}

func TestAddWaitIsSynced(t *testing.T) {
	dir := t.TempDir()
	l := open(t, Config{Dir: dir, Window: time.Hour, Instance: "replica-7"})
	r := bidRecord(1)
	r.Instance = "someone else"
	f, err := l.Add(r, true)
	require.NoError(t, err)
	require.NoError(t, f.Wait(context.Background()), "a waiting caller does not wait for the window")
	recs := readAll(t, dir)
	require.Len(t, recs, 1)
	assert.Equal(t, "replica-7", recs[0]["instance"], "the log names its replica")
	assert.Equal(t, Position{Seq: 1, Offset: int64(len(Append(nil, r)))}, l.Durable())
	assert.EqualValues(t, 1, l.Stats().Records["bid"])
}

// TestWindowGroupsWrites: records added without waiting go in one write
// and one fsync per window.
func TestWindowGroupsWrites(t *testing.T) {
	dir := t.TempDir()
	l := open(t, Config{Dir: dir, Window: time.Hour})
	var last *Flush
	for i := range 100 {
		f, err := l.Add(bidRecord(i), false)
		require.NoError(t, err)
		last = f
	}
	select {
	case <-last.Done():
		t.Fatal("written before its window ended")
	default:
	}
	require.NoError(t, l.Close(), "a close writes what waits")
	require.NoError(t, last.Wait(context.Background()))
	assert.EqualValues(t, 1, l.Stats().Syncs)
	assert.Len(t, readAll(t, dir), 100)
}

func TestOneWriterPerDirectory(t *testing.T) {
	dir := t.TempDir()
	open(t, Config{Dir: dir})
	_, err := Open(Config{Dir: dir, Logger: quiet()})
	require.ErrorIs(t, err, ErrLocked)
}

func TestRotationBySize(t *testing.T) {
	dir := t.TempDir()
	line := len(Append(nil, bidRecord(0)))
	l := open(t, Config{Dir: dir, SegmentBytes: int64(3 * line)})
	for i := range 10 {
		f, err := l.Add(bidRecord(i), true)
		require.NoError(t, err)
		require.NoError(t, f.Wait(context.Background()))
	}
	segs, err := List(dir)
	require.NoError(t, err)
	require.Len(t, segs, 4, "3 + 3 + 3 + 1")
	for _, s := range segs[:3] {
		assert.False(t, s.Open)
		assert.EqualValues(t, 3*line, s.Size)
		assert.True(t, strings.HasSuffix(s.Path, ".jsonl"))
	}
	assert.True(t, segs[3].Open)
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprint("bid:", bidRecord(i).BidID.String()))
	}
	assert.Equal(t, want, bidIDs(readAll(t, dir)), "every record once, in order")
}

func TestRotationByAge(t *testing.T) {
	dir := t.TempDir()
	now := testTime
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	l := open(t, Config{Dir: dir, SegmentAge: time.Hour, Clock: clock, MaintainEvery: time.Hour})
	f, err := l.Add(bidRecord(1), true)
	require.NoError(t, err)
	require.NoError(t, f.Wait(context.Background()))
	require.True(t, l.Maintain())
	segs, _ := List(dir)
	require.Len(t, segs, 1, "younger than its age: still open")
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	require.True(t, l.Maintain())
	segs, _ = List(dir)
	require.Len(t, segs, 2)
	assert.False(t, segs[0].Open, "an hour old: finished")
	assert.True(t, segs[1].Open)
	require.True(t, l.Maintain())
	segs, _ = List(dir)
	assert.Len(t, segs, 2, "an empty segment is never finished")
}

func TestCompression(t *testing.T) {
	dir := t.TempDir()
	l := open(t, Config{Dir: dir, Compress: true})
	for i := range 5 {
		_, err := l.Add(bidRecord(i), false)
		require.NoError(t, err)
		require.NoError(t, l.Rotate())
	}
	require.NoError(t, l.Close(), "waits for the compressor")
	segs, err := List(dir)
	require.NoError(t, err)
	require.Len(t, segs, 6)
	for _, s := range segs[:5] {
		assert.True(t, s.Compressed, s.Path)
		_, err := os.Stat(strings.TrimSuffix(s.Path, ".gz"))
		assert.ErrorIs(t, err, os.ErrNotExist, "the plain file is removed")
	}
	assert.Len(t, readAll(t, dir), 5)
	// Both files of one segment (a crash between the rename and the
	// removal): listed once, compressed.
	plain := strings.TrimSuffix(segs[0].Path, ".gz")
	require.NoError(t, os.WriteFile(plain, Append(nil, bidRecord(0)), 0o644))
	again, err := List(dir)
	require.NoError(t, err)
	assert.Len(t, again, 6)
	assert.True(t, again[0].Compressed)
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	l := open(t, Config{Dir: dir, RetentionAge: time.Hour, KeepUnshipped: true})
	for i := range 4 {
		_, err := l.Add(bidRecord(i), false)
		require.NoError(t, err)
		require.NoError(t, l.Rotate())
	}
	segs, _ := List(dir)
	require.Len(t, segs, 5)
	old := time.Now().Add(-2 * time.Hour)
	for _, s := range segs[:4] {
		require.NoError(t, os.Chtimes(s.Path, old, old))
	}
	require.True(t, l.Maintain())
	segs, _ = List(dir)
	assert.Len(t, segs, 5, "nothing shipped: nothing deleted, however old")
	require.NoError(t, l.SaveShipped(Position{Seq: 3, Offset: 0}))
	require.True(t, l.Maintain())
	segs, _ = List(dir)
	require.Len(t, segs, 3, "segments 1 and 2 shipped and old: deleted")
	assert.EqualValues(t, 3, segs[0].Seq, "segment 3 is not wholly shipped")
	assert.EqualValues(t, 2, l.Stats().Deleted)
}

func TestRetentionBySize(t *testing.T) {
	dir := t.TempDir()
	line := int64(len(Append(nil, bidRecord(0))))
	l := open(t, Config{Dir: dir, RetentionBytes: 2*line + 1})
	for i := range 4 {
		_, err := l.Add(bidRecord(i), false)
		require.NoError(t, err)
		require.NoError(t, l.Rotate())
	}
	segs, _ := List(dir)
	require.Len(t, segs, 3, "the two oldest go; two finished and the empty open one stay")
	assert.EqualValues(t, 3, segs[0].Seq)
	recs := readAll(t, dir)
	assert.Equal(t, []string{"bid:" + bidRecord(2).BidID.String(), "bid:" + bidRecord(3).BidID.String()}, bidIDs(recs))
}

func TestShippedPositionPersists(t *testing.T) {
	dir := t.TempDir()
	l := open(t, Config{Dir: dir})
	assert.Equal(t, Position{}, l.Shipped())
	require.NoError(t, l.SaveShipped(Position{Seq: 4, Offset: 1234}))
	require.NoError(t, l.Close())
	p, err := ReadShipped(dir)
	require.NoError(t, err)
	assert.Equal(t, Position{Seq: 4, Offset: 1234}, p)
	l2 := open(t, Config{Dir: dir})
	assert.Equal(t, p, l2.Shipped())
	require.NoError(t, os.WriteFile(filepath.Join(dir, shippedName), []byte("garbage"), 0o644))
	_, err = ReadShipped(dir)
	assert.Error(t, err)
}

// TestTornTailIsCut: a crash leaves the open segment with a half-written
// line (and blocks of zeros some file systems add past what was synced):
// the next Open cuts it back to the last whole record, and the records
// written after follow it cleanly.
func TestTornTailIsCut(t *testing.T) {
	for name, tail := range map[string][]byte{
		"half a line":       Append(nil, bidRecord(99))[:40],
		"zeros":             make([]byte, 4096),
		"a line of garbage": []byte("{\"v\":1,\"type\":\"bid\",\"bidid\":\x00\x00}\n"),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := open(t, Config{Dir: dir, Clock: atTestTime})
			for i := range 3 {
				f, err := l.Add(bidRecord(i), true)
				require.NoError(t, err)
				require.NoError(t, f.Wait(context.Background()))
			}
			require.NoError(t, l.Close())
			segs, _ := List(dir)
			require.Len(t, segs, 1)
			f, err := os.OpenFile(segs[0].Path, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.Write(tail)
			require.NoError(t, err)
			require.NoError(t, f.Close())

			l = open(t, Config{Dir: dir, Clock: atTestTime})
			fl, err := l.Add(bidRecord(3), true)
			require.NoError(t, err)
			require.NoError(t, fl.Wait(context.Background()))
			recs := readAll(t, dir)
			require.Len(t, recs, 4, "three before, one after, nothing torn")
			assert.Equal(t, "bid:"+bidRecord(3).BidID.String(), bidIDs(recs)[3])
		})
	}
}

// fakeOutbox is a state's outbox in memory.
type fakeOutbox struct {
	mu    sync.Mutex
	lines map[bidder.OutboxID][]byte
	sig   chan struct{}
}

func newOutbox() *fakeOutbox {
	return &fakeOutbox{lines: map[bidder.OutboxID][]byte{}, sig: make(chan struct{}, 1)}
}

func (o *fakeOutbox) commit(r *Record) {
	o.mu.Lock()
	o.lines[bidder.OutboxID{Event: bidder.EventWin, Bid: r.BidID}] = Append(nil, r)
	o.mu.Unlock()
	select {
	case o.sig <- struct{}{}:
	default:
	}
}

func (o *fakeOutbox) PendingEvents(max int, fn func(bidder.OutboxID, []byte)) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for id, l := range o.lines {
		if max == 0 {
			break
		}
		fn(id, l)
		max--
	}
	return nil
}

func (o *fakeOutbox) AckEvents(ids []bidder.OutboxID) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		delete(o.lines, id)
	}
	return nil
}

func (o *fakeOutbox) EventsWaiting() <-chan struct{} { return o.sig }

func (o *fakeOutbox) pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.lines)
}

func winRecord(n int) *Record {
	r := testRecord(TypeWin)
	r.Instance = "i"
	r.BidID = bidder.BidID{byte(n >> 8), byte(n)}
	return &r
}

func TestOutboxIsWrittenThenAcknowledged(t *testing.T) {
	dir := t.TempDir()
	o := newOutbox()
	l := open(t, Config{Dir: dir, Outbox: o, Instance: "i"})
	for i := range 5 {
		o.commit(winRecord(i))
	}
	// The outbox's records go with the next write; a waiting Add makes one.
	f, err := l.Add(bidRecord(1), true)
	require.NoError(t, err)
	require.NoError(t, f.Wait(context.Background()))
	require.NoError(t, l.Close())
	assert.Zero(t, o.pending(), "acknowledged once synced")
	recs := readAll(t, dir)
	wins := 0
	for _, r := range recs {
		if r["type"] == "win" {
			wins++
		}
	}
	assert.Equal(t, 5, wins)
}

// TestOutboxAfterACrash: the state committed three wins' records; a crash
// took the process after the first was written and synced but before the
// state heard so. At the next Open the first is not written again, the
// other two are, and all three are acknowledged.
func TestOutboxAfterACrash(t *testing.T) {
	dir := t.TempDir()
	l := open(t, Config{Dir: dir, Instance: "i", Clock: atTestTime})
	_, err := l.AddLine(Append(nil, winRecord(1)), TypeWin, true)
	require.NoError(t, err)
	require.NoError(t, l.Close())

	o := newOutbox()
	for i := 1; i <= 3; i++ {
		o.commit(winRecord(i))
	}
	open(t, Config{Dir: dir, Outbox: o, Instance: "i", Clock: atTestTime})
	assert.Zero(t, o.pending())
	assert.ElementsMatch(t, []string{"win:" + winRecord(1).BidID.String(), "win:" + winRecord(2).BidID.String(),
		"win:" + winRecord(3).BidID.String()}, bidIDs(readAll(t, dir)), "each once")
}

func TestClosedLogRefuses(t *testing.T) {
	l := open(t, Config{Dir: t.TempDir()})
	require.NoError(t, l.Close())
	_, err := l.Add(bidRecord(1), false)
	assert.Error(t, err)
	assert.Error(t, l.Rotate())
	assert.NoError(t, l.Close(), "twice is fine")
}

func TestWaitingIsBounded(t *testing.T) {
	l := open(t, Config{Dir: t.TempDir(), Window: time.Hour, MaxWaitingBytes: 1000})
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = l.Add(bidRecord(i), false)
	}
	require.ErrorIs(t, err, ErrUnavailable)
	assert.EqualValues(t, 1, l.Stats().Refused)
}

// TestFullDisk: on a full disk a write waits for room and the log is
// unavailable (new records refused); with room again, the waiting records
// are written whole and once, and the log takes records again. A Close
// while the disk is full ends.
func TestFullDisk(t *testing.T) {
	fs := smallfs.Mount(t, 4<<20)
	dir := filepath.Join(fs, "events")
	fl := smallfs.NewFiller(t, fs)
	l := open(t, Config{Dir: dir, RetryEvery: 10 * time.Millisecond})
	f, err := l.Add(bidRecord(0), true)
	require.NoError(t, err)
	require.NoError(t, f.Wait(context.Background()))

	fl.Fill(0)
	// Records go until the writer meets the full disk: then it waits, and
	// the log refuses more.
	var waiting []*Flush
	for i := 1; ; i++ {
		f, err := l.Add(bidRecord(i), false)
		if err != nil {
			require.ErrorIs(t, err, ErrUnavailable, "no record taken while the disk is full")
			break
		}
		waiting = append(waiting, f)
		require.Less(t, i, 1_000_000, "the disk never filled")
	}
	assert.True(t, l.Unavailable())
	select {
	case <-waiting[len(waiting)-1].Done():
		t.Fatal("written on a full disk")
	default:
	}
	fl.Free(1 << 20)
	for _, f := range waiting {
		require.NoError(t, f.Wait(context.Background()))
	}
	assert.False(t, l.Unavailable())
	recs := readAll(t, dir)
	require.Len(t, recs, 1+len(waiting), "every record taken, whole, once")
	assert.Positive(t, l.Stats().DiskFull)

	fl.Fill(0)
	for i := 0; !l.Unavailable(); i++ {
		_, err := l.Add(bidRecord(2000+i), true)
		if err != nil {
			break
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waits for room")
	}
}

func TestReadFromAnOffset(t *testing.T) {
	dir := t.TempDir()
	l := open(t, Config{Dir: dir})
	for i := range 3 {
		f, err := l.Add(bidRecord(i), true)
		require.NoError(t, err)
		require.NoError(t, f.Wait(context.Background()))
	}
	segs, _ := List(dir)
	var offsets []int64
	require.NoError(t, Read(segs[0], 0, -1, func(_ []byte, next int64) error { offsets = append(offsets, next); return nil }))
	require.Len(t, offsets, 3)
	var got [][]byte
	require.NoError(t, Read(segs[0], offsets[0], offsets[1], func(line []byte, _ int64) error {
		got = append(got, bytes.Clone(line))
		return nil
	}))
	require.Len(t, got, 1, "from the first record's end to the limit: the second")
	assert.Contains(t, string(got[0]), bidRecord(1).BidID.String())
}
