package api

import (
	"errors"
	"net/http"

	"github.com/recbid/dspd/bidder"
)

// handleWin serves GET /dsp/win?bidid=…&price=…, the exchange's win notice.
// Checks run in this order: method; a query that is not valid url-encoding
// (400 bad_query); bidid missing (400 missing_field); price missing (400
// missing_field), malformed or zero (400 invalid_field); unknown or expired bid
// (404 unknown_bid); price above the bid's price (400 invalid_field); then
// the first notice is recorded (204) and repeats answer 204 with
// X-Win-Duplicate: 1. Nothing is recorded for a rejected notice.
func (s *Server) handleWin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.winReject(errMethodNotAllowed)
		methodNotAllowed(w, hdrAllowGET)
		return
	}
	buf := bodyBufs.Get().(*bodyBuf)
	defer bodyBufs.Put(buf)
	if len(r.URL.RawQuery) > MaxBodyBytes {
		s.winReject(errBadQuery)
		writeError(w, http.StatusBadRequest, errBadQuery, "", "query too long")
		return
	}
	q := buf[:copy(buf[:], r.URL.RawQuery)]
	bidIDText, priceText, err := parseWinQuery(q)
	switch {
	case err != nil:
		s.winReject(errBadQuery)
		writeError(w, http.StatusBadRequest, errBadQuery, "", "query is not valid url-encoding")
		return
	case bidIDText == nil:
		s.winReject(errMissingField)
		writeError(w, http.StatusBadRequest, errMissingField, "bidid", "bidid is required")
		return
	case priceText == nil:
		s.winReject(errMissingField)
		writeError(w, http.StatusBadRequest, errMissingField, "price", "price is required")
		return
	}
	price, err := bidder.ParseMicros(priceText)
	if err != nil || price == 0 {
		// A zero price is refused too: a leaked nurl fired at 0 must not
		// claim the win before the exchange's own notice.
		s.winReject(errInvalidField)
		writeError(w, http.StatusBadRequest, errInvalidField, "price",
			"price must be a decimal > 0 with at most 6 fractional digits")
		return
	}
	id, ok := bidder.ParseBidID(bidIDText)
	if !ok {
		s.winReject(errUnknownBid)
		writeError(w, http.StatusNotFound, errUnknownBid, "bidid", "unknown or expired bid")
		return
	}
	out, err := s.engine.Win(r.Context(), id, price)
	switch {
	case errors.Is(err, bidder.ErrUnknownBid):
		s.winReject(errUnknownBid)
		writeError(w, http.StatusNotFound, errUnknownBid, "bidid", "unknown or expired bid")
		return
	case errors.Is(err, bidder.ErrPriceAboveBid):
		s.winReject(errInvalidField)
		writeError(w, http.StatusBadRequest, errInvalidField, "price", "price is above the bid's price")
		return
	case err != nil:
		// The books could not be written: a state store failure, never a
		// client's doing.
		s.metrics.stateErrors.Inc()
		s.stateLog.error("win not recorded", "bidid", id.String(), "err", err)
		w.Header()["Retry-After"] = hdrRetryAfter1
		writeError(w, http.StatusServiceUnavailable, errStateUnavailable, "", "the win could not be recorded; retry")
		return
	}
	switch {
	case out.Duplicate:
		s.metrics.winDuplicate.Inc()
		w.Header()["X-Win-Duplicate"] = hdrDuplicateOn
	case out.Record.Test:
		s.metrics.winTest.Inc()
	default:
		s.metrics.winRecorded.Inc()
		s.metrics.spend.Add(float64(price))
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) winReject(code string) {
	s.metrics.winRejected.Inc()
	s.metrics.fail("win", code)
}

// parseWinQuery decodes a win notice query in place with the same strict
// rules as a bid request body, returning the first non-empty bidid and
// price (nil when absent).
func parseWinQuery(q []byte) (bidID, price []byte, err error) {
	sc := pairScanner{b: q}
	for {
		k, v, ok, err := sc.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return bidID, price, nil
		}
		if len(v) == 0 {
			continue
		}
		switch string(k) {
		case "bidid":
			if bidID == nil {
				bidID = v
			}
		case "price":
			if price == nil {
				price = v
			}
		}
	}
}
