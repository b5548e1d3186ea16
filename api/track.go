package api

import (
	"context"
	"strconv"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/tracker"
)

// PixelGIF is the transparent 1×1 GIF an impression tracker answers.
var PixelGIF = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

// Error codes of the trackers.
const (
	codeInvalidSignature = "invalid_signature" // not a URL dspd signed
	codeExpired          = "expired"           // signed, but older than the tracking window
	codeUnknownCreative  = "unknown_creative"  // a click on a creative no longer served: nowhere to send it
)

// trackQuery is a tracker URL's query, decoded in place.
type trackQuery struct {
	bid, time, campaign, creative, event, sig []byte
	code                                      []byte // a video error's code (not signed: the player fills it in)
}

// serveTracker answers a tracker URL of a bid made for exchange
// exchangeID (trackurl.go): GET /dsp/imp[/X] (a 1×1 GIF),
// /dsp/click[/X] (a 302 to the creative's own click URL, as the serving
// campaigns have it: never a URL taken from the query) or /dsp/video[/X]
// (204). Checks in order: method (405), a query that is not valid
// url-encoding or misses a part (400 bad_query), a signature that is not
// dspd's for this event, bid, time, exchange, campaign and creative (400
// invalid_signature), a bid older than the tracking window (400 expired).
// The first hit of each event of a bid is recorded (its claim and its
// record durable before the answer); repeats are answered alike and
// record nothing. None of the answers may be cached.
func (s *Server) serveTracker(kind Endpoint, exchangeID string, r *Request, resp *Response) {
	resp.NoStore = true
	if r.Method != methodGET && r.Method != "HEAD" {
		resp.Allow = methodGET
		s.metrics.fail("tracker", CodeMethodNotAllowed)
		resp.Fail(statusMethodNotAllowed, CodeMethodNotAllowed, "", "method not allowed; use "+methodGET)
		return
	}
	buf := bodyBufs.Get().(*bodyBuf)
	defer bodyBufs.Put(buf)
	if len(r.Query) > MaxBodyBytes {
		s.trackFail(0, trackInvalid, resp, CodeBadQuery, "query too long")
		return
	}
	var q trackQuery
	if !parseTrackQuery(buf[:copy(buf[:], r.Query)], &q) {
		s.trackFail(0, trackInvalid, resp, CodeBadQuery, "the query must hold b, t, c, r and s (and e for a video event), url-encoded")
		return
	}
	e := tracker.Impression
	switch kind {
	case EndpointClick:
		e = tracker.Click
	case EndpointVideo:
		var ok bool
		if e, ok = tracker.ParseEvent(string(q.event)); !ok || !e.Video() {
			s.trackFail(0, trackInvalid, resp, CodeBadQuery, "e must be a video event: start, firstQuartile, midpoint, thirdQuartile, complete or error")
			return
		}
	}
	bid, okBid := bidder.ParseBidID(q.bid)
	timeS, errT := strconv.ParseInt(string(q.time), 10, 64)
	tok := tracker.Token{Bid: bid, TimeS: timeS, Exchange: exchangeID, Campaign: string(q.campaign), Creative: string(q.creative)}
	if !okBid || errT != nil || !s.signer.Verify(e, &tok, q.sig) {
		s.trackFail(e, trackInvalid, resp, codeInvalidSignature, "not a tracking URL of this bidder")
		return
	}
	now := s.engine.Now()
	until := time.Unix(timeS, 0).Add(s.cfg.TrackTTL)
	if !now.Before(until) {
		s.trackFail(e, trackExpired, resp, codeExpired, "the tracking window of this bid has closed")
		return
	}
	outcome, err := s.claimTracked(r.Ctx, e, &tok, until, now, errorCode(q.code))
	if err != nil {
		s.metrics.trackers[e][trackUnavailable].Inc()
		resp.RetryAfter = true
		resp.Fail(statusServiceUnavailable, errStateUnavailable, "", "the event could not be recorded; retry")
		return
	}
	s.metrics.trackers[e][outcome].Inc()
	if outcome == trackRecorded && (e == tracker.Impression || e == tracker.Click) {
		s.engine.Tally().Event(tok.Campaign, tok.TimeS, bidder.OnceEvent(e))
	}
	switch e {
	case tracker.Impression:
		resp.Status, resp.Pixel = statusOK, true
	case tracker.Click:
		s.redirect(resp, tok.Campaign, tok.Creative)
	default:
		resp.noContent()
	}
}

// claimTracked records the first hit of event e of a bid: its claim in the
// state and, when the event log is on, its record, durable before the
// answer. Without an event log there is nothing to record once, and every
// hit is answered alike.
func (s *Server) claimTracked(ctx context.Context, e tracker.Event, tok *tracker.Token, until, now time.Time, code string) (trackOutcome, error) {
	l := s.cfg.Events
	if l == nil {
		return trackRecorded, nil
	}
	if l.Unavailable() {
		return 0, events.ErrUnavailable
	}
	r := events.Record{Type: recordType(e), Time: now, BidID: tok.Bid, Exchange: tok.Exchange, Campaign: tok.Campaign,
		Creative: tok.Creative, Reason: code}
	line := s.encodeLine(&r)
	defer lineBufs.Put(line)
	var committed []byte
	if s.outbox {
		committed = *line
	}
	first, err := s.engine.ClaimEvent(ctx, bidder.OnceEvent(e), tok.Bid, until, committed)
	switch {
	case err != nil:
		s.stateLog.error("a tracker event could not be claimed", "event", e.String(), "err", err)
		return 0, err
	case !first:
		return trackDuplicate, nil
	case !s.outbox:
		if err := s.writeOnce(ctx, *line, r.Type); err != nil {
			return 0, err
		}
	}
	return trackRecorded, nil
}

// recordType is the record type of a tracker event.
func recordType(e tracker.Event) events.Type {
	switch e {
	case tracker.Impression:
		return events.TypeImpression
	case tracker.Click:
		return events.TypeClick
	case tracker.Start:
		return events.TypeStart
	case tracker.FirstQuartile:
		return events.TypeFirstQuartile
	case tracker.Midpoint:
		return events.TypeMidpoint
	case tracker.ThirdQuartile:
		return events.TypeThirdQuartile
	case tracker.Error:
		return events.TypeError
	}
	return events.TypeComplete
}

// errorCode is a video error's VAST code as the player filled the
// [ERRORCODE] macro in: 1–4 digits, else "" (unknown).
func errorCode(code []byte) string {
	if len(code) == 0 || len(code) > 4 {
		return ""
	}
	for _, c := range code {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return string(code)
}

// redirect answers a click with a 302 to the creative's click URL in the
// serving campaigns, or 404 when the campaign or creative is no longer
// served (the click is recorded all the same: it happened).
func (s *Server) redirect(resp *Response, campaign, creative string) {
	if cat := s.Catalog(); cat != nil {
		if c, ok := cat.Campaign(campaign); ok {
			for i := range c.Creatives {
				if cr := &c.Creatives[i]; cr.ID == creative && cr.ClickURL != "" {
					resp.Status, resp.Location = statusFound, cr.ClickURL
					return
				}
			}
		}
	}
	s.metrics.fail("tracker", codeUnknownCreative)
	resp.Fail(statusNotFound, codeUnknownCreative, "", "the creative of this click is no longer served")
}

// trackFail answers a tracker's 4xx and counts it.
func (s *Server) trackFail(e tracker.Event, o trackOutcome, resp *Response, code, message string) {
	if e != 0 {
		s.metrics.trackers[e][o].Inc()
	}
	s.metrics.fail("tracker", code)
	resp.Fail(statusBadRequest, code, "", message)
}

// parseTrackQuery decodes a tracker query in place: the first non-empty
// value of each part; false when it is not valid url-encoding or a part
// (but e, for the callers that need none) is missing.
func parseTrackQuery(raw []byte, q *trackQuery) bool {
	sc := pairScanner{rest: raw}
	for {
		k, v, ok, err := sc.next()
		if err != nil {
			return false
		}
		if !ok {
			break
		}
		var dst *[]byte
		switch string(k) {
		case "b":
			dst = &q.bid
		case "t":
			dst = &q.time
		case "c":
			dst = &q.campaign
		case "r":
			dst = &q.creative
		case "e":
			dst = &q.event
		case "s":
			dst = &q.sig
		case "code":
			dst = &q.code
		}
		if dst == nil || len(v) == 0 || *dst != nil {
			if checkEscapes(v) != nil {
				return false
			}
			continue
		}
		if *dst, err = unescape(v); err != nil {
			return false
		}
	}
	return q.bid != nil && q.time != nil && q.campaign != nil && q.creative != nil && q.sig != nil
}
