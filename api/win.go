package api

import (
	"context"
	"errors"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/exchange"
)

// serveWin answers GET /dsp/win[/EXCHANGE]?bidid=…&price=…, an exchange's
// win notice. Checks run in this order: method; a query that is not valid
// url-encoding (400 bad_query); bidid missing (400 missing_field); price
// missing (400 missing_field); an unknown or expired bid, or a bid made for
// another exchange than the path's (404 unknown_bid); a price that the
// bid's price rules (those of its exchange when it was made) refuse:
// malformed, zero, not signed by the exchange (400 invalid_field); a price
// above the bid's own (400 invalid_field); then the first notice is
// recorded (204) and repeats answer 204 with X-Win-Duplicate: 1. Nothing is
// recorded for a rejected notice. Win notices are not filtered by source:
// the encrypted price is their guard.
func (s *Server) serveWin(id string, r *Request, resp *Response) {
	m := s.metrics.known(id)
	if r.Method != methodGET {
		resp.Allow = methodGET
		s.winRefuse(m, resp, statusMethodNotAllowed, CodeMethodNotAllowed, "", "method not allowed; use "+methodGET)
		return
	}
	buf := bodyBufs.Get().(*bodyBuf)
	defer bodyBufs.Put(buf)
	if len(r.Query) > MaxBodyBytes {
		s.winRefuse(m, resp, statusBadRequest, CodeBadQuery, "", "query too long")
		return
	}
	q := buf[:copy(buf[:], r.Query)]
	bidIDText, priceText, billing, err := parseWinQuery(q)
	switch {
	case err != nil:
		s.winRefuse(m, resp, statusBadRequest, CodeBadQuery, "", "query is not valid url-encoding")
		return
	case bidIDText == nil:
		s.winRefuse(m, resp, statusBadRequest, CodeMissingField, "bidid", "bidid is required")
		return
	case priceText == nil:
		s.winRefuse(m, resp, statusBadRequest, CodeMissingField, "price", "price is required")
		return
	}
	bidID, rec, err := s.peekBid(r.Ctx, bidIDText, id)
	switch {
	case errors.Is(err, bidder.ErrUnknownBid):
		s.winRefuse(m, resp, statusNotFound, errUnknownBid, "bidid", "unknown or expired bid")
		return
	case err != nil:
		s.winUnavailable(resp, m, bidID, err)
		return
	}
	price, err := s.decodePrice(rec, priceText)
	if err != nil {
		s.winRefuse(m, resp, statusBadRequest, CodeInvalidField, "price", priceMessage(rec))
		return
	}
	if s.eventsDown() {
		s.winUnavailable(resp, m, bidID, events.ErrUnavailable)
		return
	}
	out, err := s.bookWin(r.Ctx, rec, price)
	switch {
	case errors.Is(err, bidder.ErrUnknownBid): // expired since the peek
		s.winRefuse(m, resp, statusNotFound, errUnknownBid, "bidid", "unknown or expired bid")
		return
	case errors.Is(err, bidder.ErrPriceAboveBid):
		s.winRefuse(m, resp, statusBadRequest, CodeInvalidField, "price", "price is above the bid's price")
		return
	case err != nil:
		s.winUnavailable(resp, m, bidID, err)
		return
	}
	switch {
	case out.Duplicate:
		m.winDuplicate.Inc()
		resp.Duplicate = true
	case out.Record.Test:
		m.winTest.Inc()
	default:
		m.winRecorded.Inc()
		m.spend.Add(float64(price))
	}
	if billing && !out.Record.Test {
		if err := s.bookBilling(r.Ctx, out.Record, price); err != nil {
			s.winUnavailable(resp, m, bidID, err)
			return
		}
	}
	resp.noContent()
}

// bookWin books a win notice with the engine and, when the event log is
// on, the win's record: committed with the win by a state that is an
// outbox, else written and synced here before the notice is answered.
// Only the notice that books the win writes its record.
func (s *Server) bookWin(ctx context.Context, rec bidder.BidRecord, price bidder.Micros) (bidder.WinOutcome, error) {
	if s.cfg.Events == nil || rec.Test { // a test bid's win books nothing, and leaves no record
		return s.engine.WinPeeked(ctx, rec, price)
	}
	line := s.encodeLine(noticeRecord(events.TypeWin, rec, price, s.engine.Now()))
	defer lineBufs.Put(line)
	out, err := s.engine.WinLogged(ctx, rec, price, *line)
	if err == nil && !out.Duplicate && !out.EventKept {
		err = s.writeOnce(ctx, *line, events.TypeWin)
	}
	return out, err
}

// bookBilling records a bid's first billing notice (the OpenRTB burl: the
// win path with billing=1), once, whether it or the nurl booked the win.
func (s *Server) bookBilling(ctx context.Context, rec bidder.BidRecord, price bidder.Micros) error {
	if s.cfg.Events == nil {
		return nil
	}
	line := s.encodeLine(noticeRecord(events.TypeBilling, rec, price, s.engine.Now()))
	defer lineBufs.Put(line)
	var committed []byte
	if s.outbox {
		committed = *line
	}
	// The claim lasts as long as the bid's record could, and a day more.
	until := time.Unix(rec.TimeS, 0).Add(s.engine.BidTTL() + 24*time.Hour)
	first, err := s.engine.ClaimEvent(ctx, bidder.EventBilling, rec.ID, until, committed)
	switch {
	case err != nil:
		return err
	case !first:
		s.metrics.billingDuplicate.Inc()
		return nil
	case !s.outbox:
		if err := s.writeOnce(ctx, *line, events.TypeBilling); err != nil {
			return err
		}
	}
	s.metrics.billingRecorded.Inc()
	return nil
}

// noticeRecord is the record of a win or billing notice for the bid rec at
// the clearing price.
func noticeRecord(t events.Type, rec bidder.BidRecord, price bidder.Micros, now time.Time) *events.Record {
	return &events.Record{Type: t, Time: now, BidID: rec.ID, Exchange: rec.Exchange, Campaign: rec.CampaignID,
		Creative: rec.CreativeID, Price: price, BidTimeS: rec.TimeS, BidPrice: rec.Price, Deal: rec.Deal}
}

// peekBid finds the live bid a notice names, made for exchange exchangeID:
// a bidid that is not 32 hex digits, or a bid of another exchange, is
// unknown.
func (s *Server) peekBid(ctx context.Context, text []byte, exchangeID string) (bidder.BidID, bidder.BidRecord, error) {
	id, ok := bidder.ParseBidID(text)
	if !ok {
		return id, bidder.BidRecord{}, bidder.ErrUnknownBid
	}
	rec, err := s.engine.Peek(ctx, id)
	if err == nil && rec.Exchange != exchangeID {
		err = bidder.ErrUnknownBid // as if it did not exist
	}
	return id, rec, err
}

// decodePrice reads a notice's price by the rules the bid was made under.
// A bid whose rules this server never loaded (another replica's, on an
// exchanges file this one does not have) is refused like a bad price, and
// logged.
func (s *Server) decodePrice(rec bidder.BidRecord, text []byte) (bidder.Micros, error) {
	p := s.prices.get(rec.Pricing)
	if p == nil {
		s.stateLog.error("win notice for a bid made under price rules this server never loaded: load the same exchanges file on every replica",
			"exchange", rec.Exchange, "pricing", rec.Pricing)
		return 0, exchange.ErrPrice
	}
	return p.Decode(text)
}

// priceMessage says what the rules of a bid's exchange want of a price.
// (The cause stays out of the answer: a forger learns nothing from it.)
func priceMessage(rec bidder.BidRecord) string {
	if rec.Pricing == exchange.ClearPricing().Fingerprint() {
		return "price must be a decimal > 0 with at most 6 fractional digits"
	}
	return "price must be the exchange's encrypted price, signed with its keys, above 0"
}

// winUnavailable answers a notice the books could not take: a state store
// failure, never a client's doing, to be retried.
func (s *Server) winUnavailable(resp *Response, m *exchangeMetrics, id bidder.BidID, err error) {
	s.metrics.stateErrors.Inc()
	m.winRejected.Inc()
	s.stateLog.error("win not recorded", "bidid", id.String(), "err", err)
	resp.RetryAfter = true
	resp.Fail(statusServiceUnavailable, errStateUnavailable, "", "the win could not be recorded; retry")
}

// winRefuse answers a win notice's 4xx {"error":code,…} and counts it, by
// exchange and by endpoint and code.
func (s *Server) winRefuse(m *exchangeMetrics, resp *Response, status int, code, field, message string) {
	m.winRejected.Inc()
	s.metrics.fail("win", code)
	resp.Fail(status, code, field, message)
}

// parseWinQuery decodes a win notice query in place with the same strict
// rules as a bid request body, returning the first non-empty bidid and
// price (nil when absent), and whether it is a billing notice (billing=1,
// as the burl dspd answers carries it).
func parseWinQuery(q []byte) (bidID, price []byte, billing bool, err error) {
	sc := pairScanner{rest: q}
	var bill []byte
	for {
		k, v, ok, err := sc.next()
		if err != nil {
			return nil, nil, false, err
		}
		if !ok {
			return bidID, price, string(bill) == "1", nil
		}
		var dst *[]byte
		switch string(k) {
		case "bidid":
			dst = &bidID
		case "price":
			dst = &price
		case "billing":
			dst = &bill
		}
		if dst == nil || len(v) == 0 || *dst != nil {
			if err := checkEscapes(v); err != nil {
				return nil, nil, false, err
			}
			continue
		}
		if *dst, err = unescape(v); err != nil {
			return nil, nil, false, err
		}
	}
}
