// Package nethttp is dspd's default front end: the bidding endpoints of
// package api's core on net/http, routed by chi, and the net/http server
// the public listener (and the admin listener, package admin) runs, with
// the contract's limits and timeouts and a drain on shutdown.
package nethttp
