package api

import "errors"

// bidEndpoint is what tells the two bidding endpoints' preambles apart.
type bidEndpoint struct {
	label string // the endpoint label of dspd_http_errors_total
	// openrtb: the X-Openrtb-Version header is echoed, a body without a
	// Content-Type is read as JSON, and gzip bodies are inflated.
	openrtb bool
}

var (
	recbidEndpoint  = bidEndpoint{label: "recbid"}
	openrtbEndpoint = bidEndpoint{label: "openrtb", openrtb: true}
)

// outcomes returns the endpoint's request counters of an exchange.
func (ep *bidEndpoint) outcomes(m *exchangeMetrics) *outcomes {
	if ep.openrtb {
		return &m.openrtb
	}
	return &m.recbid
}

// bidPreamble runs what both bidding endpoints check before they read
// their protocol, in the contract's order: the exchange the path names,
// the method, the exchange's admission, the media type (and for OpenRTB
// the content encoding), the body's size, and reading it (for OpenRTB
// inflating it) into buf. It returns the exchange's wire, its counters and
// the body; or, having answered and counted the refusal, a nil wire. A
// non-nil gunzipper holds the body and goes back to its pool after it.
func (s *Server) bidPreamble(ep *bidEndpoint, exchangeID string, cur *serving, r *Request, resp *Response,
	buf *bodyBuf) (wr *wire, m *outcomes, body []byte, gz *gunzipper) {
	if wr = s.bidWire(exchangeID, cur, resp); wr == nil {
		return nil, nil, nil, nil
	}
	m = ep.outcomes(wr.m)
	if ep.openrtb && isOpenRTBVersion(r.OpenRTBVersion) {
		resp.Version = r.OpenRTBVersion // the request's header: the front end writes it before the request ends
	}
	if r.Method != methodPOST {
		resp.Allow = methodPOST
		return s.refuse(ep, m, resp, statusMethodNotAllowed, CodeMethodNotAllowed, "", "method not allowed; use "+methodPOST)
	}
	if msg, ok := s.admit(r, wr); !ok {
		return s.refuse(ep, m, resp, statusForbidden, CodeForbidden, "", msg)
	}
	gzipped := false
	switch ct := r.ContentType; {
	case !ep.openrtb && !isFormContentType(ct):
		return s.refuse(ep, m, resp, statusUnsupportedMediaType, CodeUnsupportedMediaType, "", "Content-Type must be "+FormMediaType)
	// Many exchanges' adapters send no Content-Type: a body without one is
	// read as JSON, and only another type is refused.
	case ep.openrtb && ct != "" && !isJSONContentType(ct):
		return s.refuse(ep, m, resp, statusUnsupportedMediaType, CodeUnsupportedMediaType, "", "Content-Type must be "+JSONMediaType+" (or absent)")
	case ep.openrtb:
		var ok bool
		if gzipped, ok = contentEncoding(r.ContentEncoding, r.Encodings); !ok {
			return s.refuse(ep, m, resp, statusUnsupportedMediaType, CodeUnsupportedMediaType, "", "Content-Encoding must be gzip or identity")
		}
	}
	body, err := readBody(r, buf)
	if err == nil && gzipped {
		gz = gunzippers.Get().(*gunzipper)
		body, err = gz.inflate(body)
	}
	switch {
	case err == nil:
		return wr, m, body, gz
	case errors.Is(err, errTooLarge):
		s.refuse(ep, m, resp, statusRequestTooLarge, errBodyTooLarge, "", "body larger than 16384 bytes")
	case errors.Is(err, errBadGzip):
		s.refuse(ep, m, resp, statusBadRequest, errBadBody, "", "body is not valid gzip")
	default: // the client went away or sent a broken body: answer what we can
		s.refuse(ep, m, resp, statusBadRequest, errBadBody, "", "could not read the body")
	}
	if gz != nil {
		gunzippers.Put(gz)
	}
	return nil, nil, nil, nil
}

// refuse answers a bidding endpoint's 4xx {"error":code,…} and counts it,
// by exchange and by endpoint and code; it returns bidPreamble's refusal.
func (s *Server) refuse(ep *bidEndpoint, m *outcomes, resp *Response, status int, code, field, message string) (*wire, *outcomes, []byte, *gunzipper) {
	m.rejected.Inc()
	s.metrics.fail(ep.label, code)
	resp.Fail(status, code, field, message)
	return nil, nil, nil, nil
}
