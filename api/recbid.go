package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// nobidHeaders holds the X-Nobid-Reason values, one shared slice per reason.
var nobidHeaders = func() (h [16][]string) {
	for _, r := range bidder.NoBidReasons() {
		h[r] = []string{r.String()}
	}
	return h
}()

// handleRecbid serves POST /dsp/recbid[/EXCHANGE]: validation in the
// contract's order (method, the exchange's admission, content type, size,
// encoding, keys), the decision, and a 200 bid or a 204 no bid.
func (s *Server) handleRecbid(w http.ResponseWriter, r *http.Request) {
	arrived := s.engine.Now()
	cur := s.current.Load()
	wr := s.bidWire(w, r, cur)
	if wr == nil {
		return
	}
	m := &wr.m.recbid
	if r.Method != http.MethodPost {
		s.reject(m, "recbid", errMethodNotAllowed)
		methodNotAllowed(w, hdrAllowPOST)
		return
	}
	if !s.admit(w, r, wr) {
		s.reject(m, "recbid", errForbidden)
		return
	}
	if !isFormContentType(r.Header.Get("Content-Type")) {
		s.reject(m, "recbid", errUnsupportedMediaType)
		writeError(w, http.StatusUnsupportedMediaType, errUnsupportedMediaType, "",
			"Content-Type must be "+formMediaType)
		return
	}
	buf := bodyBufs.Get().(*bodyBuf)
	defer bodyBufs.Put(buf)
	body, err := readBody(r, buf)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			s.reject(m, "recbid", errBodyTooLarge)
			writeError(w, http.StatusRequestEntityTooLarge, errBodyTooLarge, "", "body larger than 16384 bytes")
			return
		}
		// The client went away or sent a broken body: answer what we can.
		s.reject(m, "recbid", errBadBody)
		writeError(w, http.StatusBadRequest, errBadBody, "", "could not read the body")
		return
	}
	var f form
	if err := parseForm(body, &f); err != nil {
		s.reject(m, "recbid", errBadBody)
		writeError(w, http.StatusBadRequest, errBadBody, "", "body is not valid url-encoding")
		return
	}
	var req bidder.Request
	if ferr := buildRequest(&f, &req, arrived, s.cfg.TrustRequestTS); ferr != nil {
		s.reject(m, "recbid", ferr.code)
		writeError(w, http.StatusBadRequest, ferr.code, ferr.field, ferr.message)
		return
	}
	req.Exchange, req.Pricing = wr.ex.ID, wr.fingerprint
	d, err := s.engine.Decide(r.Context(), cur.catalog, &req)
	s.metrics.decision.Observe(time.Since(arrived).Seconds())
	if err != nil {
		s.stateError(err)
	}
	if !d.Bid() {
		s.noBid(w, wr.m, d.Reason)
		return
	}
	m.bid.Inc()
	jw := jsoncodec.NewWriter()
	defer jw.Free()
	s.encodeBid(jw, &req, &d, &cur.creatives[d.Slot], wr)
	w.Header()["Content-Type"] = hdrJSON
	_, _ = w.Write(jw.Bytes())
}

// encodeBid writes the bid response of the contract, with the nurl of the
// exchange the bid was made for.
func (s *Server) encodeBid(jw jsoncodec.Writer, req *bidder.Request, d *bidder.Decision, cr *creativeJSON, wr *wire) {
	var id [32]byte
	bidID := d.BidID.AppendHex(id[:0])
	jw.RawString(`{"id":`)
	jw.ASCIIString(req.ID)
	jw.RawString(`,"bidid":"`)
	jw.Raw(bidID)
	jw.Raw(s.seat)
	jw.Raw(bidID)
	jw.RawString(`","impid":`)
	jw.ASCIIString(req.ImpID)
	jw.Raw(cr.head)
	jw.SetBytes(wr.appendNURL(jw.Bytes(), bidID))
	jw.Raw(cr.tail)
}

func (s *Server) noBid(w http.ResponseWriter, m *exchangeMetrics, reason bidder.NoBidReason) {
	m.recbid.nobid.Inc()
	m.reasons[reason].Inc()
	w.Header()["X-Nobid-Reason"] = nobidHeaders[reason]
	w.WriteHeader(http.StatusNoContent)
}

// reject counts an endpoint's 4xx answer.
func (s *Server) reject(m *outcomes, endpoint, code string) {
	m.rejected.Inc()
	s.metrics.fail(endpoint, code)
}
