//go:build linux

package synchelper

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain serves as the helper when a test started this binary as one.
func TestMain(m *testing.M) {
	ServeIfHelper()
	os.Exit(m.Run())
}

// liveness bounds every wait of these tests: past it something is stuck
// (a deadlock is what they look for), not slow.
const liveness = 30 * time.Second

// start starts a helper answering the tests' requests, closed at the
// test's end.
func start(t *testing.T, cfg Config) *Helper {
	t.Helper()
	cfg.testOps = true
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h, err := Start(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// ask sends one of the tests' requests and waits for its answer.
func ask(t *testing.T, h *Helper, op uint8, f vfs.File) reply {
	t.Helper()
	var id uint64
	if f != nil {
		id = f.(*file).id
	}
	r := receive(t, h.send(request{op: op, file: id}, nil, true))
	require.Equal(t, uint8(statusOK), r.status, "op %d", op)
	return r
}

// helperSyncs returns how many syncs of f the helper made (0 when it does
// not hold f).
func helperSyncs(t *testing.T, h *Helper, f vfs.File) int64 {
	t.Helper()
	return ask(t, h, opSyncs, f).value
}

func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(liveness):
		t.Fatalf("nothing within %v", liveness)
		panic("unreachable")
	}
}

// countingFS counts the syncs its files do themselves (in-process).
type countingFS struct {
	vfs.FS
	syncs atomic.Int64
}

func (fs *countingFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, c)
	if err != nil {
		return f, err
	}
	return &countingFile{File: f, n: &fs.syncs}, nil
}

func (fs *countingFS) OpenDir(name string) (vfs.File, error) {
	f, err := fs.FS.OpenDir(name)
	if err != nil {
		return f, err
	}
	return &countingFile{File: f, n: &fs.syncs}, nil
}

type countingFile struct {
	vfs.File
	n *atomic.Int64
}

func (f *countingFile) Sync() error     { f.n.Add(1); return f.File.Sync() }
func (f *countingFile) SyncData() error { f.n.Add(1); return f.File.SyncData() }
func (f *countingFile) SyncTo(n int64) (bool, error) {
	f.n.Add(1)
	return f.File.SyncTo(n)
}

// create creates a file with a few bytes in it in a directory of the test's.
func create(t *testing.T, fs vfs.FS) vfs.File {
	t.Helper()
	f, err := fs.Create(filepath.Join(t.TempDir(), "f"), vfs.WriteCategoryUnspecified)
	require.NoError(t, err)
	_, err = f.Write([]byte("abc"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// logBuffer is a log destination the tests read.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSyncsGoThroughTheHelper: each kind of sync is the helper's, none is
// done in-process, and a closed file is forgotten by the helper.
func TestSyncsGoThroughTheHelper(t *testing.T) {
	h := start(t, Config{})
	for _, tc := range []struct {
		name       string
		dir        bool
		sync       func(vfs.File) error
		wantHelper int64 // syncs the helper makes of the two
	}{
		{"Sync", false, func(f vfs.File) error { return f.Sync() }, 2},
		{"SyncData", false, func(f vfs.File) error { return f.SyncData() }, 2},
		{"SyncTo", false, func(f vfs.File) error { _, err := f.SyncTo(2); return err }, 2},
		{"directory Sync", true, func(f vfs.File) error { return f.Sync() }, 2},
		{"directory SyncData", true, func(f vfs.File) error { return f.SyncData() }, 2},
		{"directory SyncTo does nothing", true, func(f vfs.File) error { _, err := f.SyncTo(2); return err }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			under := &countingFS{FS: vfs.Default}
			fs := h.FS(under)
			var f vfs.File
			if tc.dir {
				var err error
				f, err = fs.OpenDir(t.TempDir())
				require.NoError(t, err)
			} else {
				f = create(t, fs)
			}
			require.IsType(t, &file{}, f, "a file with a descriptor is the helper's")
			before := h.Synced()
			require.NoError(t, tc.sync(f))
			require.NoError(t, tc.sync(f))
			assert.Equal(t, tc.wantHelper, helperSyncs(t, h, f))
			assert.Equal(t, tc.wantHelper, h.Synced()-before)
			if tc.wantHelper > 0 {
				assert.Zero(t, under.syncs.Load(), "no sync in-process")
			}
			require.NoError(t, f.Close())
			assert.Zero(t, helperSyncs(t, h, f), "the helper forgot the closed file")
		})
	}
}

// TestConcurrentSyncs: goroutines syncing the same and different files at
// once each get their own answer.
func TestConcurrentSyncs(t *testing.T) {
	const files, goroutines, each = 4, 8, 25
	h := start(t, Config{})
	under := &countingFS{FS: vfs.Default}
	fs := h.FS(under)
	var fl [files]vfs.File
	for i := range fl {
		fl[i] = create(t, fs)
	}
	errs := make(chan error, goroutines*each)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				f := fl[g%files]
				if i%2 == 0 {
					errs <- f.Sync()
				} else {
					errs <- f.SyncData()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for _, f := range fl {
		assert.EqualValues(t, goroutines/files*each, helperSyncs(t, h, f))
	}
	assert.Zero(t, under.syncs.Load())
}

// pipeFile is a "file" whose descriptor is a pipe's, which fsync refuses
// (EINVAL): a real errno from the helper's system call.
type pipeFile struct {
	vfs.File // nil: only the methods below are called
	w        *os.File
	direct   atomic.Int64
}

func (p *pipeFile) Fd() uintptr                    { return p.w.Fd() }
func (p *pipeFile) Sync() error                    { p.direct.Add(1); return nil }
func (p *pipeFile) SyncData() error                { p.direct.Add(1); return nil }
func (p *pipeFile) SyncTo(int64) (bool, error)     { p.direct.Add(1); return true, nil }
func (p *pipeFile) Close() error                   { return p.w.Close() }
func (p *pipeFile) Write(b []byte) (int, error)    { return p.w.Write(b) }
func (p *pipeFile) Stat() (vfs.FileInfo, error)    { panic("not called") }
func (p *pipeFile) Prefetch(int64, int64) error    { return nil }
func (p *pipeFile) Preallocate(int64, int64) error { return nil }

// TestHelperErrorsComeBack: a sync that fails in the helper fails with
// its errno, and is not done again in-process.
func TestHelperErrorsComeBack(t *testing.T) {
	h := start(t, Config{})
	for _, tc := range []struct {
		name string
		sync func(vfs.File) error
	}{
		{"Sync", func(f vfs.File) error { return f.Sync() }},
		{"SyncData", func(f vfs.File) error { return f.SyncData() }},
		{"SyncTo", func(f vfs.File) error { _, err := f.SyncTo(1); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer r.Close()
			pipe := &pipeFile{w: w}
			f, err := h.wrap(pipe, nil, "a pipe", false)
			require.NoError(t, err)
			defer f.Close()
			for range 2 {
				err := tc.sync(f)
				require.ErrorIs(t, err, syscall.EINVAL)
				assert.ErrorContains(t, err, "by the sync helper")
			}
			assert.EqualValues(t, 2, helperSyncs(t, h, f), "both attempted by the helper")
			assert.Zero(t, pipe.direct.Load(), "a failed sync is not tried again in-process")
		})
	}
}

// heldSync syncs f and sends the outcome; TestSyncLeavesThePFree finds it
// in the goroutines' stacks by its name.
func heldSync(f vfs.File, res chan<- error) { res <- f.Sync() }

// syncGoroutine returns the header line of the goroutine in heldSync
// ("goroutine 7 [chan receive]:").
func syncGoroutine() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "synchelper.heldSync(") {
			return strings.SplitN(g, "\n", 2)[0]
		}
	}
	return ""
}

// TestSyncLeavesThePFree: with one P, while the helper holds a sync,
// another goroutine runs to its end and the goroutine waiting for the sync
// is parked (not in a system call, not spinning); only then is the sync
// let go. Holding the P would deadlock the test (the liveness bound fails
// it).
func TestSyncLeavesThePFree(t *testing.T) {
	h := start(t, Config{})
	f := create(t, h.FS(vfs.Default))
	require.NoError(t, f.Sync()) // its descriptor is the helper's already
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))

	ask(t, h, opHold, nil)
	res := make(chan error, 1)
	go heldSync(f, res)
	ask(t, h, opWaitHeld, nil) // the helper holds the sync: heldSync waits for its answer

	other := make(chan int)
	go func() {
		sum := 0
		for i := range 1000 {
			sum += i
		}
		other <- sum
	}()
	assert.Equal(t, 499500, receive(t, other), "another goroutine ran while the sync waited")
	select {
	case err := <-res:
		t.Fatalf("the sync returned before the helper let it go: %v", err)
	default:
	}
	// The syncing goroutine is parked, waiting for its answer: not in a
	// system call, not spinning. It may be seen once just past its send,
	// runnable: look again (a goroutine in a system call or spinning never
	// parks, and the liveness bound fails the test).
	deadline := time.Now().Add(liveness)
	for g := syncGoroutine(); !strings.Contains(g, "[chan receive"); g = syncGoroutine() {
		require.True(t, time.Now().Before(deadline), "the syncing goroutine stays %q", g)
		runtime.Gosched()
	}

	ask(t, h, opRelease, nil)
	require.NoError(t, receive(t, res))
	assert.EqualValues(t, 2, helperSyncs(t, h, f))
}

// TestLostHelperFallsBack: once the helper is gone, the sync waiting for
// its answer and every later one are done in-process; the loss is logged
// and reported once.
func TestLostHelperFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		waiting bool // a sync waits for the helper when it dies
	}{
		{"idle", false},
		{"while a sync waits", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lost := make(chan error, 2)
			logs := &logBuffer{}
			h := start(t, Config{Logger: slog.New(slog.NewTextHandler(logs, nil)), OnLost: func(err error) { lost <- err }})
			under := &countingFS{FS: vfs.Default}
			f := create(t, h.FS(under))
			require.NoError(t, f.Sync())
			require.Zero(t, under.syncs.Load(), "the helper's")

			var res chan error
			if tc.waiting {
				ask(t, h, opHold, nil)
				res = make(chan error, 1)
				go heldSync(f, res)
				ask(t, h, opWaitHeld, nil)
			}
			require.NoError(t, h.cmd.Process.Kill())
			receive(t, h.exited)
			var want int64
			if tc.waiting {
				require.NoError(t, receive(t, res))
				want++
				assert.Equal(t, want, under.syncs.Load(), "the waiting sync, done in-process")
			}
			require.NoError(t, f.SyncData())
			require.NoError(t, f.Sync())
			want += 2
			assert.Equal(t, want, under.syncs.Load(), "later syncs, done in-process")

			assert.Error(t, receive(t, lost))
			select {
			case err := <-lost:
				t.Errorf("reported twice: %v", err)
			default:
			}
			assert.Equal(t, 1, strings.Count(logs.String(), "sync helper lost"), logs.String())
		})
	}
}

// TestFileTheHelperLacksIsSyncedInProcess: a file whose descriptor the
// helper does not hold is synced in-process from then on.
func TestFileTheHelperLacksIsSyncedInProcess(t *testing.T) {
	logs := &logBuffer{}
	h := start(t, Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	under := &countingFS{FS: vfs.Default}
	f := create(t, h.FS(under))
	require.NoError(t, f.Sync())
	ask(t, h, opDrop, f)

	require.NoError(t, f.Sync())
	assert.EqualValues(t, 1, under.syncs.Load(), "done in-process")
	require.NoError(t, f.SyncData())
	assert.EqualValues(t, 2, under.syncs.Load())
	assert.Zero(t, helperSyncs(t, h, f), "the helper was not asked again")
	assert.Equal(t, 1, strings.Count(logs.String(), "did not reach the helper"), logs.String())
}

// TestFilesWithoutADescriptorSyncThemselves: a MemFS's files are left as
// they are.
func TestFilesWithoutADescriptorSyncThemselves(t *testing.T) {
	h := start(t, Config{})
	f, err := h.FS(vfs.NewMem()).Create("f", vfs.WriteCategoryUnspecified)
	require.NoError(t, err)
	_, wrapped := f.(*file)
	assert.False(t, wrapped)
	require.NoError(t, f.Sync())
	assert.Zero(t, h.Synced())
}

// TestCloseStopsTheHelper: Close ends the helper process; syncs after it
// are done in-process, and the stop is no loss to report.
func TestCloseStopsTheHelper(t *testing.T) {
	logs := &logBuffer{}
	lost := make(chan error, 1)
	h := start(t, Config{Logger: slog.New(slog.NewTextHandler(logs, nil)), OnLost: func(err error) { lost <- err }})
	under := &countingFS{FS: vfs.Default}
	f := create(t, h.FS(under))
	require.NoError(t, f.Sync())
	require.NoError(t, h.Close())
	select {
	case <-h.exited:
	default:
		t.Fatal("Close returned with the helper running")
	}
	require.NoError(t, f.Sync())
	assert.EqualValues(t, 1, under.syncs.Load(), "done in-process")
	assert.Empty(t, lost)
	assert.NotContains(t, logs.String(), "lost")
}

// TestStartRefusesAProgramThatIsNotAHelper: a program that never says
// hello is not taken for a helper.
func TestStartRefusesAProgramThatIsNotAHelper(t *testing.T) {
	path, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	_, err = Start(Config{Path: path, Logger: slog.New(slog.DiscardHandler)})
	assert.ErrorContains(t, err, "ServeIfHelper")
}
