// Package loadtest is the load driver behind cmd/loadgen: an HTTP/1.1 load
// generator with ab's semantics (exact request counts, concurrency,
// keep-alive or a connection per request, ab's failure accounting and
// report) and what ab, wrk and hey lack: latency in HDR histograms (constant
// memory, any run length), an open-loop mode at a fixed request rate whose
// latencies count from each request's scheduled send time (coordinated
// omission corrected, as wrk2 does), corpus replay, warm-up, and results as
// JSON that merge across machines.
//
// The client is a small HTTP/1.1 implementation over net.Conn rather than
// net/http: it writes each prepared request in one call, times the connect,
// the first response byte and the last, and allocates nothing per request,
// which is what lets one core drive a server as hard as wrk does.
package loadtest
