// Package api is dspd's transport-neutral core: a Server answers the
// bidding endpoints (POST /dsp/recbid, the form protocol; POST
// /openrtb2/bid, OpenRTB 2.6; GET /dsp/win, win and billing notices) from a
// Request to a Response, with a hand-written form parser over pooled
// buffers, an allocation-free OpenRTB decoder and pre-encoded JSON answer
// fragments, over the engine of package bidder and the campaign, exchange
// and currency sets it reloads as one. It knows nothing of HTTP servers:
// the front ends (packages nethttp and fasthttp) turn their requests into
// a Request, call Serve and write the Response, and package admin serves
// the operator's endpoints. docs/architecture.md draws the whole path.
package api
