package api

import (
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// serveRecbid answers POST /dsp/recbid[/EXCHANGE]: validation in the
// contract's order (method, the exchange's admission, content type, size,
// encoding, keys), the decision, and a 200 bid or a 204 no bid.
func (s *Server) serveRecbid(exchangeID string, r *Request, resp *Response) {
	arrived := s.arrival(r)
	cur := s.current.Load()
	buf := bodyBufs.Get().(*bodyBuf)
	defer bodyBufs.Put(buf)
	wr, m, body, _ := s.bidPreamble(&recbidEndpoint, exchangeID, cur, r, resp, buf)
	if wr == nil {
		return
	}
	var f form
	if err := parseForm(body, &f); err != nil {
		s.refuse(&recbidEndpoint, m, resp, statusBadRequest, errBadBody, "", "body is not valid url-encoding")
		return
	}
	var req bidder.Request
	if ferr := buildRequest(&f, &req, arrived, s.cfg.TrustRequestTS); ferr != nil {
		s.refuse(&recbidEndpoint, m, resp, statusBadRequest, ferr.code, ferr.field, ferr.message)
		return
	}
	req.Exchange, req.Pricing = wr.ex.ID, wr.fingerprint
	if s.eventsDown() { // no bid whose record could not be kept
		s.noBid(resp, wr.m, bidder.ReasonStateUnavailable)
		return
	}
	d, err := s.engine.Decide(r.Ctx, cur.catalog, &req)
	s.metrics.decision.Observe(s.engine.Now().Sub(arrived).Seconds())
	if err != nil {
		s.stateError(err)
	}
	if d.Shed {
		s.metrics.shedRecbid.Inc()
	}
	if d.Bid() && !s.logBid(r.Ctx, &req, &d, protocolRecbid) {
		d = bidder.Decision{Reason: bidder.ReasonStateUnavailable}
	}
	if !d.Bid() {
		s.logNoBid(&req, d.Reason, protocolRecbid)
		s.noBid(resp, wr.m, d.Reason)
		return
	}
	m.bid.Inc()
	s.encodeBid(resp.json(statusOK), &req, &d, &cur.creatives[d.Slot], wr)
}

// encodeBid writes the bid response of the contract, with the nurl of the
// exchange the bid was made for, and, when tracking, the bid's tracking
// URLs in its adm.
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
	out := wr.appendNURL(jw.Bytes(), bidID)
	if s.cfg.Track {
		out = s.appendParts(out, cr.tracked, cr, wr.track, d, wr.ex.ID, requestSeconds(req), 0)
	} else {
		out = append(out, cr.tail...)
	}
	jw.SetBytes(out)
}

// requestSeconds is a request's time in whole Unix seconds (rounded down),
// as tracking URLs carry it.
func requestSeconds(req *bidder.Request) int64 {
	s := req.TimeMs / 1000
	if req.TimeMs%1000 < 0 {
		s--
	}
	return s
}

func (s *Server) noBid(resp *Response, m *exchangeMetrics, reason bidder.NoBidReason) {
	m.recbid.nobid.Inc()
	m.reasons[reason].Inc()
	resp.NoBid = reason
	resp.noContent()
}

// The methods the endpoints take.
const (
	methodPOST = "POST"
	methodGET  = "GET"
)
