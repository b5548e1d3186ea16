// Package fasthttp is dspd's second front end (dspd -http fasthttp): the
// bidding endpoints of package api's core on valyala/fasthttp, and the
// fasthttp server the public listener runs, configured with the contract's
// limits and timeouts as the net/http front end is, with net/http's
// handling of unread bodies (drained up to 256 KiB, else a lingering
// close) and a drain on shutdown.
package fasthttp
