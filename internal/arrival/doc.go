// Package arrival tells when each request on a TCP connection reached the
// host, so that a request's deadline can count from its arrival rather
// than from the moment a handler got to it. A request waits, unseen by any
// handler, in the kernel's accept queue and socket buffer, in the Go
// scheduler's run queue and through garbage collection pauses: under
// overload those waits are most of its life.
//
// A Conn reads its socket with recvmsg and asks the kernel for each
// segment's receive timestamp (SO_TIMESTAMPNS), so that the time noted is
// when the bytes came in from the network, however long they then waited
// to be read. Where the kernel gives none (another system, a refused
// socket option), it is the time of the read that returned them.
//
// The arrival of a request is the receive time of the first bytes read
// after the previous answer was written (or after the connection was
// accepted). A client that pipelines, sending a request before the answer
// to the one before it, has that request counted from the first read after
// that answer: later than it arrived, never earlier.
//
// On Linux a Conn also writes its answers itself, and both its reads and
// its writes are raw system calls made through the connection's RawConn:
// the runtime's poller still waits and keeps the deadlines, but the calls
// do not hand the scheduler's P to another thread (write_linux.go).
package arrival
