// Package synchelper takes the disk state's fsyncs off the Go scheduler.
//
// A goroutine blocked in a system call keeps its P, the scheduler's right
// to run Go code, until sysmon takes it back (after 20 µs to 10 ms); with
// GOMAXPROCS 1 the whole server waits that long at every fsync. A
// goroutine waiting to read a socket holds no P: the netpoller parks it. So
// the syncs are done by a helper process, this program's own binary
// started again in helper mode (ServeIfHelper, which main calls before
// anything else), and the goroutine that syncs waits for the answer on a
// socket.
//
// Helper.FS wraps a vfs.FS: the files it creates or opens for writing
// (and the directories it opens) whose descriptor is real have their
// Sync, SyncData and SyncTo done by the helper; the others (a MemFS's)
// sync themselves, as do read-only files, which are never synced. The
// helper does what Pebble's vfs.Default does on Linux: fsync, fdatasync,
// and for SyncTo sync_file_range on ext2/3/4 (fdatasync elsewhere); a
// directory's SyncData is its fsync and its SyncTo does nothing.
//
// # The protocol
//
// One SOCK_SEQPACKET socketpair; the helper's end is its descriptor 3.
// Every message is one packet of 32 bytes (wire.go). dspd sends requests:
// "fsync file k", "fdatasync file k", "sync_file_range file k to n", each
// with a request id, and "forget file k" when the file closes. The first
// request for a file carries the file's descriptor (SCM_RIGHTS); the
// helper keeps its copy under k until told to forget it. Each sync is
// answered with its request id and its outcome: done, failed with an
// errno, or not attempted (the helper has no descriptor for k). Any
// number of syncs may be outstanding, from any goroutines; one goroutine
// reads the answers and hands each to its caller. Start opens with a
// hello, answered with the protocol's version.
//
// The helper runs each sync on a goroutine of its own, so that a WAL's
// fdatasync does not wait behind a compaction's, and sets GOMAXPROCS to 8
// so that the goroutine reading the next request has a P while syncs are
// in the kernel (its Ps cost nothing while idle). It ignores SIGINT,
// SIGTERM and SIGHUP (they are dspd's to act on) and exits when its socket
// reaches EOF: when dspd closes it, exits, or is killed.
//
// # Failures
//
// An fsync that fails in the helper is returned as the errno it is, and is
// not tried again in-process (after a failed fsync Linux may have dropped
// the pages, and a second one can succeed without them): the disk state
// stops, as it does without the helper. When the helper is lost (it
// exited, was killed, or the socket broke), every sync waiting for an
// answer and every later one is done in-process instead, on the file
// itself, and the loss is logged once (Config.OnLost is called). A file
// whose descriptor did not reach the helper is synced in-process from
// then on. No sync is dropped, and none is reported done that was not
// done. One window remains: a helper killed after an fsync failed and
// before it answered leaves dspd to sync again in-process, and the error
// consumed by the helper's fsync (the two descriptors share one open file)
// may go unseen.
package synchelper
