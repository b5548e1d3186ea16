package api

import (
	"context"
	"errors"

	"github.com/recbid/dspd/bidder"
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
	bidIDText, priceText, err := parseWinQuery(q)
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
	out, err := s.engine.WinPeeked(r.Ctx, rec, price)
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
	resp.noContent()
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
// price (nil when absent).
func parseWinQuery(q []byte) (bidID, price []byte, err error) {
	sc := pairScanner{rest: q}
	for {
		k, v, ok, err := sc.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return bidID, price, nil
		}
		var dst *[]byte
		switch string(k) {
		case "bidid":
			dst = &bidID
		case "price":
			dst = &price
		}
		if dst == nil || len(v) == 0 || *dst != nil {
			if err := checkEscapes(v); err != nil {
				return nil, nil, err
			}
			continue
		}
		if *dst, err = unescape(v); err != nil {
			return nil, nil, err
		}
	}
}
