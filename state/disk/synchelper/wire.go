//go:build linux

package synchelper

import (
	"encoding/binary"
	"fmt"
	"syscall"
)

// protocolVersion is the hello's answer: dspd and its helper are one
// binary, but a Config.Path may name another.
const protocolVersion = 1

// messageSize is the size of every request and every answer: one packet.
const messageSize = 32

// The requests' operations.
const (
	opHello     = 1 // answered with protocolVersion
	opFsync     = 2 // fsync(2)
	opFdatasync = 3 // fdatasync(2)
	opSyncTo    = 4 // SyncTo(arg): sync_file_range on ext2/3/4, else fdatasync
	opForget    = 5 // close the helper's copy of the file; not answered

	// The tests' requests, answered only by a helper started with
	// Config.testOps.
	opSyncs    = 16 // how many syncs of the file the helper made, in value
	opHold     = 17 // syncs from now on wait for opRelease before syncing
	opWaitHeld = 18 // answered once a sync waits at the hold
	opRelease  = 19 // the held syncs go on; no more holding
	opDrop     = 20 // forget the file, as opForget, but answered
)

// An answer's status.
const (
	statusOK      = 0   // done
	statusErrno   = 1   // attempted, failed with errno
	statusNoFile  = 2   // not attempted: the helper has no descriptor for the file
	statusRefused = 3   // an operation the helper does not do
	statusLost    = 255 // never sent: the helper is lost, the request not done
)

// request is one request, dspd to helper:
//
//	[0] op  [1:8] zero  [8:16] id  [16:24] file  [24:32] arg
type request struct {
	op   uint8
	id   uint64 // the request's, echoed in its answer
	file uint64 // dspd's number for the file
	arg  int64  // SyncTo's length
}

func (r request) encode(b *[messageSize]byte) {
	*b = [messageSize]byte{}
	b[0] = r.op
	binary.LittleEndian.PutUint64(b[8:], r.id)
	binary.LittleEndian.PutUint64(b[16:], r.file)
	binary.LittleEndian.PutUint64(b[24:], uint64(r.arg))
}

func decodeRequest(b []byte) request {
	return request{op: b[0], id: binary.LittleEndian.Uint64(b[8:]), file: binary.LittleEndian.Uint64(b[16:]),
		arg: int64(binary.LittleEndian.Uint64(b[24:]))}
}

// reply is one answer, helper to dspd:
//
//	[0] status  [1] full  [2:4] zero  [4:8] errno  [8:16] id  [16:24] value  [24:32] zero
type reply struct {
	status uint8
	full   bool   // SyncTo's fullSync
	errno  uint32 // with statusErrno
	id     uint64
	value  int64 // opHello's version, opSyncs' count
}

func (r reply) encode(b *[messageSize]byte) {
	*b = [messageSize]byte{}
	b[0] = r.status
	if r.full {
		b[1] = 1
	}
	binary.LittleEndian.PutUint32(b[4:], r.errno)
	binary.LittleEndian.PutUint64(b[8:], r.id)
	binary.LittleEndian.PutUint64(b[16:], uint64(r.value))
}

func decodeReply(b []byte) reply {
	return reply{status: b[0], full: b[1] == 1, errno: binary.LittleEndian.Uint32(b[4:]),
		id: binary.LittleEndian.Uint64(b[8:]), value: int64(binary.LittleEndian.Uint64(b[16:]))}
}

// err is the error of an answered sync: nil when done, the errno when it
// failed.
func (r reply) err(op, name string) error {
	if r.status != statusErrno {
		return nil
	}
	return fmt.Errorf("%s %s (by the sync helper): %w", op, name, syscall.Errno(r.errno))
}
