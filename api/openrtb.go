package api

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/jsoncodec"
	"github.com/recbid/dspd/nativead"
	"github.com/recbid/dspd/tracker"
)

// OpenRTB 2.6 on the same engine and the same books as recbid: see
// docs/openrtb.md for the contract.

const JSONMediaType = "application/json"

// nbrCodes maps the bidder's no-bid reasons to the nearest OpenRTB no-bid
// reason code (the IAB list that OpenRTB 2.6 refers to); docs/openrtb.md
// explains each choice.
var nbrCodes = [bidder.NumReasons]int{
	bidder.ReasonCurrency:         2,  // Invalid Request: dspd bids in USD only
	bidder.ReasonNoMatch:          0,  // Unknown Error: the list has no "no matching demand"
	bidder.ReasonBelowFloor:       0,  // Unknown Error: nor "below floor"
	bidder.ReasonFreqCap:          9,  // Daily User Cap Met
	bidder.ReasonConsent:          0,  // Unknown Error: the list has no code for a missing legal basis (privacy.md section 8)
	bidder.ReasonBudget:           10, // Daily Domain Cap Met: a daily cap, the campaign's
	bidder.ReasonPacing:           0,  // Unknown Error: held back to spread a budget over the day; no code says so
	bidder.ReasonTimeout:          15, // Insufficient Auction Time
	bidder.ReasonStateUnavailable: 1,  // Technical Error
	bidder.ReasonCapacity:         1,  // Technical Error: the bidder's state is full
}

// serveOpenRTB answers POST /openrtb2/bid[/EXCHANGE]: validation in
// recbid's order (method, the exchange's admission, content type and
// encoding, size, gzip and JSON, fields), one decision per impression, and
// a 200 bid response, or a 204 no bid (a 200 {"id":…,"nbr":N} when the
// exchange asks for reasons).
func (s *Server) serveOpenRTB(exchangeID string, r *Request, resp *Response) {
	arrived := s.arrival(r)
	cur := s.current.Load()
	st := openrtbStates.Get().(*openrtbState)
	defer openrtbStates.Put(st)
	wr, m, body, gz := s.bidPreamble(&openrtbEndpoint, exchangeID, cur, r, resp, &st.body)
	if wr == nil {
		return
	}
	if gz != nil {
		defer gunzippers.Put(gz)
	}
	ferr, jsonOK := decodeBidRequest(body, st, s.cfg.Seat)
	switch {
	case !jsonOK:
		s.refuse(&openrtbEndpoint, m, resp, statusBadRequest, errBadBody, "", "body is not a JSON object")
		return
	case ferr != nil:
		s.refuse(&openrtbEndpoint, m, resp, statusBadRequest, ferr.code, ferr.field, ferr.message)
		return
	}
	s.noteInvalidFields(&st.req)
	s.bidOpenRTB(r, resp, cur, wr, st, arrived)
}

// bidOpenRTB decides every impression of a valid request and answers.
func (s *Server) bidOpenRTB(r *Request, resp *Response, cur *serving, wr *wire, st *openrtbState, arrived time.Time) {
	req := &st.req
	imps := &s.metrics.openrtb
	reason := bidder.ReasonNone // the furthest stage any impression reached
	bids := st.bids[:0]
	defer func() { // the pool must not keep an old catalogue's campaigns alive
		clear(st.bids[:len(bids)])
		clear(st.held[:])
		clear(st.nativeCh[:])
	}()
	base := req.engineRequest(arrived)
	base.Exchange, base.Pricing = wr.ex.ID, wr.fingerprint
	base.Held = st.held[:0] // earlier impressions' bids count against caps and budgets
	legal := s.decideConsent(req)
	if !legal.UserLevel { // contextual: no user read, counted, kept or targeted
		base.UID, base.NoUser = "", true
	}
	shed := false
	down := s.eventsDown() // no bid whose record could not be kept
	for i := range req.imps {
		var id impDecision
		switch {
		case !legal.Bid:
			id.d.Reason = bidder.ReasonConsent
		case down:
			id.d.Reason = bidder.ReasonStateUnavailable
		default:
			id = s.decideImp(r.Ctx, cur, &base, st, i)
		}
		d := id.d
		shed = shed || d.Shed
		if d.Bid() && !s.logOpenRTBBid(r.Ctx, &base, &req.imps[i], &d, id.floor) {
			d = bidder.Decision{Reason: bidder.ReasonStateUnavailable}
		}
		if d.Bid() {
			bids = append(bids, openrtbBid{imp: i, d: d, vast: id.vast})
			base.Held = append(base.Held, bidder.Held{Campaign: d.Campaign, Price: d.Price})
			imps.impBid.Inc()
		} else {
			reason = max(reason, d.Reason)
			imps.impNobid.Inc()
		}
	}
	s.metrics.decision.Observe(s.engine.Now().Sub(arrived).Seconds())
	if shed {
		s.metrics.shedOpenRTB.Inc()
	}
	if len(bids) == 0 {
		if reason == bidder.ReasonNone {
			reason = bidder.ReasonNoMatch
		}
		s.logNoBid(&base, reason, protocolOpenRTB)
		s.openrtbNoBid(r, resp, wr.m, req.id, reason)
		return
	}
	wr.m.openrtb.bid.Inc()
	s.encodeOpenRTB(resp.json(statusOK), st, bids, cur.creatives, wr, requestSeconds(&base))
}

// logOpenRTBBid writes the record of an impression's bid (decideImp made
// it at the size d.Creative has).
func (s *Server) logOpenRTBBid(ctx context.Context, base *bidder.Request, imp *openrtbImp, d *bidder.Decision, floor bidder.Micros) bool {
	if s.cfg.Events == nil {
		return true
	}
	req := *base
	req.ImpID, req.Floor, req.W, req.H = imp.id, floor, d.Creative.W, d.Creative.H
	return s.logBid(ctx, &req, d, protocolOpenRTB)
}

// stateError reports what a decision's state stores said: a full store
// (the bid refused with reason capacity) or a failing one, each logged at
// most once a second.
func (s *Server) stateError(err error) {
	if errors.Is(err, bidder.ErrCapacity) {
		s.capacityLog.error("state full: bids refused (no-bid reason capacity) until entries expire; raise the caps or lower -bid-ttl", "err", err)
		return
	}
	s.metrics.stateErrors.Inc()
	s.stateLog.error("decision failed", "err", err)
}

// openrtbNoBid answers 204 with X-Nobid-Reason, or, when the exchange asks
// for reasons (?nbr=1 or X-Openrtb-Nbr: 1), 200 {"id":…,"nbr":N}.
func (s *Server) openrtbNoBid(r *Request, resp *Response, m *exchangeMetrics, id string, reason bidder.NoBidReason) {
	m.openrtb.nobid.Inc()
	m.reasons[reason].Inc()
	resp.NoBid = reason
	if !wantsNbr(r) {
		resp.noContent()
		return
	}
	jw := resp.json(statusOK)
	jw.RawString(`{"id":`)
	jw.ASCIIString(id)
	jw.RawString(`,"nbr":`)
	jw.SetBytes(strconv.AppendInt(jw.Bytes(), int64(nbrCodes[reason]), 10))
	jw.RawString(`}`)
}

// wantsNbr reports whether the exchange asks for a no-bid reason: the query
// holds the pair nbr=1, or the X-Openrtb-Nbr header is 1.
func wantsNbr(r *Request) bool {
	if strings.TrimSpace(r.OpenRTBNbr) == "1" {
		return true
	}
	for q := r.Query; q != ""; {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "nbr=1" {
			return true
		}
	}
	return false
}

// openrtbBid is one impression's bid.
type openrtbBid struct {
	imp  int // index in the request's imps
	d    bidder.Decision
	vast int // a video's VAST version
}

// responseClose ends a bid response: recbid's creative fragments end with
// it (see fragments.go), and an OpenRTB answer writes it once, after its
// last bid.
const responseClose = "]}]}"

// encodeOpenRTB writes the bid response: recbid's, with one bid per
// impression that bids, an mtype before each nurl and a burl after it:
//
//	{"id":ID,"bidid":"B1","cur":"USD","seatbid":[{"seat":SEAT,"bid":[
//	{"id":"B1","impid":IMP1,"price":…,"adid":…,"cid":…,"crid":…,"adomain":[…],"cat":[…],"w":…,"h":…,
//	 "mtype":1,"nurl":"…/dsp/win?bidid=B1&price=${AUCTION_PRICE}",
//	 "burl":"…/dsp/win?bidid=B1&price=${AUCTION_PRICE}&billing=1","adm":"…"},
//	{"id":"B2",…}]}]}
//
// Each bid is assembled from its creative's recbid fragments, head (from
// ,"price": to ,"nurl":, with ,"mtype":1 put before ,"nurl":) and tail
// (,"adm":…} and the response's close), and the exchange's nurl and burl
// (their paths and price macro are the exchange's).
func (s *Server) encodeOpenRTB(jw jsoncodec.Writer, st *openrtbState, bids []openrtbBid, creatives []creativeJSON, wr *wire, timeS int64) {
	req := &st.req
	var id [32]byte
	for i := range bids {
		b := &bids[i]
		bidID := b.d.BidID.AppendHex(id[:0])
		if i == 0 {
			jw.RawString(`{"id":`)
			jw.ASCIIString(req.id)
			jw.RawString(`,"bidid":"`)
			jw.Raw(bidID)
			jw.Raw(s.seat) // ","cur":"USD","seatbid":[{"seat":SEAT,"bid":[{"id":"
		} else {
			jw.RawString(`,{"id":"`)
		}
		cr := &creatives[b.d.Slot]
		jw.Raw(bidID)
		jw.RawString(`","impid":`)
		jw.ASCIIString(req.imps[b.imp].id)
		out := append(jw.Bytes(), `,"price":`...)
		out = b.d.Price.AppendDecimal(out) // its own, or a fixed-price deal's
		out = append(out, cr.fields...)
		if b.d.Deal != "" {
			out = append(out, `,"dealid":`...)
			out = jsoncodec.AppendString(out, b.d.Deal)
		}
		// mtype (OpenRTB 2.6): 1 banner, 2 video, 4 native, which adapters
		// that type bids by it need.
		out = append(out, `,"mtype":`...)
		out = append(out, mtypes[cr.kind])
		out = append(out, nurlKey...)
		out = wr.appendNURL(out, bidID)
		out = append(out, `,"burl":`...)
		out = wr.appendBURL(out, bidID)
		switch cr.kind {
		case bidder.Video: // tracked, whatever -track says: VAST needs its Impression (vast.go)
			out = s.appendParts(out, cr.vast[b.vast], cr, wr.track, &b.d, wr.ex.ID, timeS, len(responseClose))
		case bidder.Native:
			out = s.appendNative(out, st, b, cr, wr, timeS)
		default:
			if s.cfg.Track {
				out = s.appendParts(out, cr.tracked, cr, wr.track, &b.d, wr.ex.ID, timeS, len(responseClose))
			} else {
				out = append(out, cr.tail[:len(cr.tail)-len(responseClose)]...)
			}
		}
		jw.SetBytes(out)
	}
	jw.RawString(responseClose)
}

// mtypes are the OpenRTB 2.6 mtype digits of the creative kinds.
var mtypes = [...]byte{bidder.Banner: '1', bidder.Video: '2', bidder.Native: '4'}

// appendNative writes a native bid's adm: the native response for its
// impression's request (package nativead), its link through dspd's click
// tracker and dspd's impression tracker (tracked whatever -track says:
// the answer's markup is dspd's own), then closes the bid.
func (s *Server) appendNative(out []byte, st *openrtbState, b *openrtbBid, cr *creativeJSON, wr *wire, timeS int64) []byte {
	plan, _ := cr.native.Fit(&st.natives[b.imp]) // the chooser's fit: it holds
	tok := tracker.Token{Bid: b.d.BidID, TimeS: timeS, Exchange: wr.ex.ID, Campaign: b.d.Campaign.ID, Creative: b.d.Creative.ID}
	urls := s.appendTrackURL(st.urls[:0], wr.track, &cr.trackIDs, tracker.Click, inJSON, &tok)
	clickEnd := len(urls)
	urls = s.appendTrackURL(urls, wr.track, &cr.trackIDs, tracker.Impression, inJSON, &tok)
	st.urls = urls
	out = append(out, `,"adm":"`...)
	out = cr.native.AppendResponse(out, &plan, urls[:clickEnd], urls[clickEnd:])
	return append(out, `"}`...)
}

// openrtbState is the pooled working memory of one OpenRTB request.
type openrtbState struct {
	body  bodyBuf
	arena []byte // decoded strings and the engine's comma lists
	req   openrtbRequest
	imps  [maxImps]openrtbImp
	bids  [maxImps]openrtbBid
	held  [maxImps]bidder.Held

	natives  [maxImps]nativead.Request // the native impressions' requests
	videoCh  [maxImps]videoChooser
	nativeCh [maxImps]nativeChooser
	urls     []byte // a native bid's tracking URLs, as they are written
}

var openrtbStates = sync.Pool{New: func() any {
	return &openrtbState{arena: make([]byte, 0, 2*MaxBodyBytes)}
}}

// gunzipper inflates gzip bodies into a buffer of the body limit: a pooled
// gzip reader (its decompressor's tables and window are reused) over a
// bytes.Reader, which gzip reads directly, without a bufio.Reader.
type gunzipper struct {
	zr  gzip.Reader
	src bytes.Reader
	out bodyBuf
}

var gunzippers = sync.Pool{New: func() any { return new(gunzipper) }}

var errBadGzip = errors.New("bad gzip")

// inflate decompresses a gzip body (one or more members) into g.out,
// failing with errTooLarge as soon as it exceeds MaxBodyBytes (so a zip
// bomb costs at most 16 KiB of output) and with errBadGzip when it is not
// valid gzip.
func (g *gunzipper) inflate(body []byte) ([]byte, error) {
	g.src.Reset(body)
	if err := g.zr.Reset(&g.src); err != nil {
		return nil, errBadGzip
	}
	out, err := readLimited(&g.zr, &g.out)
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, errBadGzip
	}
	return out, err
}

// isJSONContentType accepts application/json with the rule of
// hasMediaType.
func isJSONContentType(ct string) bool { return hasMediaType(ct, JSONMediaType) }

// contentEncoding reads Content-Encoding, its first value and how many the
// request had: absent, empty or identity is a plain body, gzip (or its old
// alias x-gzip, any case) a gzip one; anything else, a list of codings
// included, is not supported (ok false).
func contentEncoding(first string, n int) (gzipped, ok bool) {
	switch n {
	case 0:
		return false, true
	case 1:
	default:
		return false, false
	}
	switch e := strings.Trim(first, " \t"); {
	case e == "" || strings.EqualFold(e, "identity"):
		return false, true
	case strings.EqualFold(e, "gzip") || strings.EqualFold(e, "x-gzip"):
		return true, true
	}
	return false, false
}

// isOpenRTBVersion accepts the x-openrtb-version values that are echoed:
// 1 to 16 printable ASCII characters ("2.6").
func isOpenRTBVersion(v string) bool {
	if len(v) == 0 || len(v) > 16 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e {
			return false
		}
	}
	return true
}
