package api

import (
	"context"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// The bidding endpoints are transport-neutral: a front end (package
// nethttp for chi on net/http, package fasthttp for valyala/fasthttp)
// turns its server's request into a Request, calls Serve, and writes the
// Response it gets back. Nothing of net/http is seen here, and tests can
// drive the endpoints without HTTP.

// Request is one request to a bidding endpoint: the parts of it the
// endpoints read. Its strings and Body are the front end's and need only
// live until Serve returns.
type Request struct {
	Ctx    context.Context // the request's context: its deadline and cancellation
	Method string
	Query  string // the raw query, without '?'
	// ContentType is the Content-Type value; ContentEncoding the first
	// Content-Encoding value and Encodings how many the request had.
	ContentType     string
	ContentEncoding string
	Encodings       int
	Authorization   string
	ForwardedFor    []string // the X-Forwarded-For values, in order
	// OpenRTBVersion is the x-openrtb-version value when the request had
	// exactly one (echoed on OpenRTB answers); OpenRTBNbr the
	// x-openrtb-nbr value.
	OpenRTBVersion string
	OpenRTBNbr     string
	// Peer is the connection's peer: read only by the admission of
	// exchanges with an allow list.
	Peer          netip.AddrPort
	ContentLength int64     // -1 when unknown
	Body          io.Reader // the body, read at most MaxBodyBytes+1 bytes far
	// Received is when the request's first bytes reached the host (package
	// internal/arrival: the kernel's receive time), or zero when the front
	// end cannot tell. A bid request's deadline counts from it, so that
	// the time it waited in queues before any handler saw it is counted.
	Received time.Time
}

// Endpoint names a public endpoint.
type Endpoint uint8

// The public endpoints.
const (
	EndpointNone       Endpoint = iota // no such path: 404
	EndpointRecbid                     // POST /dsp/recbid[/X]
	EndpointWin                        // GET /dsp/win[/X]
	EndpointOpenRTB                    // POST /openrtb2/bid[/X]
	EndpointImpression                 // GET /dsp/imp[/X]
	EndpointClick                      // GET /dsp/click[/X]
	EndpointVideo                      // GET /dsp/video[/X]
)

// Routes lists every endpoint with its bare path, for the front ends'
// routers.
func Routes() []struct {
	Path     string
	Endpoint Endpoint
} {
	return []struct {
		Path     string
		Endpoint Endpoint
	}{{RecbidPath, EndpointRecbid}, {WinPath, EndpointWin}, {OpenRTBPath, EndpointOpenRTB},
		{ImpressionPath, EndpointImpression}, {ClickPath, EndpointClick}, {VideoPath, EndpointVideo}}
}

// Route returns the endpoint and the exchange a public path names: the
// bare paths are exchange.DefaultID's, "/X" after them exchange X's. A
// path naming no endpoint, or the default exchange by its name, is
// EndpointNone.
func Route(path string) (Endpoint, string) {
	for _, p := range routes {
		if len(path) < len(p.Path) || path[:len(p.Path)] != p.Path {
			continue
		}
		rest := path[len(p.Path):]
		if rest == "" {
			return p.Endpoint, exchange.DefaultID
		}
		if rest[0] != '/' {
			return EndpointNone, ""
		}
		id, ok := ExchangeParam(rest[1:])
		if !ok || rest == "/" || strings.IndexByte(id, '/') >= 0 {
			return EndpointNone, ""
		}
		return p.Endpoint, id
	}
	return EndpointNone, ""
}

var routes = Routes()

// ExchangeParam returns the exchange a path's route parameter names:
// exchange.DefaultID when there is none, and not ok for the default
// exchange by its name (its paths are the bare ones).
func ExchangeParam(param string) (id string, ok bool) {
	switch param {
	case "":
		return exchange.DefaultID, true
	case exchange.DefaultID:
		return "", false
	}
	return param, true
}

// Response is an endpoint's answer: a status, the few headers the contract
// names, and a body. Its body lives in a pooled buffer until Release.
type Response struct {
	Status     int
	JSON       bool               // Content-Type: application/json
	Allow      string             // Allow: on a 405
	NoBid      bidder.NoBidReason // X-Nobid-Reason, when not ReasonNone
	Duplicate  bool               // X-Win-Duplicate: 1
	RetryAfter bool               // Retry-After: 1
	Version    string             // X-Openrtb-Version echoed, when not ""
	// Pixel answers a transparent 1×1 GIF (Content-Type image/gif) instead
	// of a body; NoStore forbids caching the answer (Cache-Control:
	// no-store), as a tracker's must not be; Location is a redirect's
	// target (302).
	Pixel    bool
	NoStore  bool
	Location string
	jw       jsoncodec.Writer
	hasBody  bool
}

var responses = sync.Pool{New: func() any { return new(Response) }}

// AcquireResponse borrows an empty Response; Release gives it back.
func AcquireResponse() *Response { return responses.Get().(*Response) }

// Release empties the response and gives it back to the pool: its body
// must not be used after that.
func (r *Response) Release() {
	if r.hasBody {
		r.jw.Free()
	}
	*r = Response{}
	responses.Put(r)
}

// Body returns the body written so far.
func (r *Response) Body() []byte {
	if !r.hasBody {
		return nil
	}
	return r.jw.Bytes()
}

// writer returns the body's writer, borrowing it on first use.
func (r *Response) writer() jsoncodec.Writer {
	if !r.hasBody {
		r.jw, r.hasBody = jsoncodec.NewWriter(), true
	}
	return r.jw
}

// json sets a 200-family JSON answer whose body the caller writes.
func (r *Response) json(status int) jsoncodec.Writer {
	r.Status, r.JSON = status, true
	return r.writer()
}

// Fail answers {"error":code,"field":field,"message":message}.
func (r *Response) Fail(status int, code, field, message string) {
	AppendError(r.json(status), code, field, message)
}

// noContent answers 204 with an empty body.
func (r *Response) noContent() { r.Status = statusNoContent }

// The status codes the bidding endpoints answer (RFC 9110).
const (
	statusOK                   = 200
	statusNoContent            = 204
	statusFound                = 302
	statusBadRequest           = 400
	statusForbidden            = 403
	statusNotFound             = 404
	statusMethodNotAllowed     = 405
	statusRequestTooLarge      = 413
	statusUnsupportedMediaType = 415
	statusInternalServerError  = 500
	statusServiceUnavailable   = 503
)

// Serve answers req on endpoint e for the exchange exchangeID (as Route
// gives them) into resp. A panic in an endpoint becomes a 500 with a log
// line and a metric: one bad request can never take the server down.
func (s *Server) Serve(e Endpoint, exchangeID string, req *Request, resp *Response) {
	defer s.recoverPanic(req, resp)
	switch e {
	case EndpointRecbid:
		s.serveRecbid(exchangeID, req, resp)
	case EndpointWin:
		s.serveWin(exchangeID, req, resp)
	case EndpointOpenRTB:
		s.serveOpenRTB(exchangeID, req, resp)
	case EndpointImpression, EndpointClick, EndpointVideo:
		s.serveTracker(e, exchangeID, req, resp)
	default:
		resp.NotFound()
	}
}

// NotFound answers 404 not_found: no such endpoint.
func (r *Response) NotFound() {
	r.Fail(statusNotFound, errNotFound, "", "no such endpoint")
}
