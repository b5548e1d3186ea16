// Package overload measures dspd past its capacity (make overload): for
// each front end, its capacity at a number of connections, then an open
// loop at multiples of it followed by half of it, driven as an exchange
// drives a bidder (package loadtest with a deadline: a request no
// connection can take at once is not sent, an answer later than tmax does
// not count). It reports per front end and load the goodput (bids
// answered within tmax per second), what dspd shed, the p99 of the
// answers, its memory, and how long after the load drops every answer is
// a normal one again.
//
// dspd runs as a child process pinned to one CPU (taskset); the caller
// pins this process, which drives the load, to another.
package overload
