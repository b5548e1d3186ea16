// Package api is dspd's HTTP transport: the public bidding routes
// (POST /dsp/recbid, GET /dsp/win) on a chi router, with a hand-written form
// parser over pooled buffers and pre-encoded JSON response fragments, and the
// admin routes (pprof, Prometheus metrics, health, reload, stats) on a
// separate router. The decision itself lives in package bidder.
package api
