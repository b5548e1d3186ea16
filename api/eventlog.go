package api

import (
	"context"
	"sync"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events"
)

// The records the endpoints write to the event log (package events;
// docs/events.md). A bid's record is added as it is answered, and waits
// for its sync only when the state does (EventsWait); a record that books
// money or that a bid has once (a win, a billing notice, a tracker event)
// is synced before its notice is answered: committed by the state with
// its claim when the state is an outbox (the disk state), written and
// synced by the log otherwise.

// Protocols as bid records name them.
const (
	protocolRecbid  = "recbid"
	protocolOpenRTB = "openrtb"
)

// eventsDown reports whether the event log refuses records: the server
// then makes no bid and refuses notices (503), as on a full state.
func (s *Server) eventsDown() bool { return s.cfg.Events != nil && s.cfg.Events.Unavailable() }

// logBid writes the record of a bid answered for req (at the size it bid
// at) and reports whether it was taken; a bid whose record the log
// refused is not answered.
func (s *Server) logBid(ctx context.Context, req *bidder.Request, d *bidder.Decision, protocol string) bool {
	l := s.cfg.Events
	if l == nil {
		return true
	}
	r := events.Record{Type: events.TypeBid, Time: time.UnixMilli(req.TimeMs), BidID: d.BidID, Exchange: req.Exchange,
		Campaign: d.Campaign.ID, Creative: d.Creative.ID, Price: d.Price, RequestID: req.ID, ImpID: req.ImpID,
		Protocol: protocol, W: req.W, H: req.H, Floor: req.Floor, Test: req.Test, Deal: d.Deal}
	if req.UID != "" {
		r.User = s.engine.User(req.UID)
	}
	f, err := l.Add(&r, s.cfg.EventsWait)
	if err == nil && s.cfg.EventsWait {
		err = f.Wait(ctx)
	}
	if err != nil {
		s.metrics.eventsRefused.Inc()
		s.eventsLog.error("event log refused a bid's record: the bid is not answered (state_unavailable)", "err", err)
		return false
	}
	return true
}

// logNoBid writes one no bid's record in NoBidSample.
func (s *Server) logNoBid(req *bidder.Request, reason bidder.NoBidReason, protocol string) {
	l := s.cfg.Events
	if l == nil || s.cfg.NoBidSample <= 0 || s.nobids.Add(1)%uint64(s.cfg.NoBidSample) != 0 {
		return
	}
	r := events.Record{Type: events.TypeNoBid, Time: time.UnixMilli(req.TimeMs), Exchange: req.Exchange,
		RequestID: req.ID, ImpID: req.ImpID, Protocol: protocol, Reason: reason.String()}
	if _, err := l.Add(&r, false); err != nil {
		s.metrics.eventsRefused.Inc() // a sample: nothing is refused for it
	}
}

// lineBufs hold the records a notice encodes before the state commits them.
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// encodeLine encodes r into a pooled buffer, with the log's instance; put
// it back with lineBufs.Put when the record has been committed or written.
func (s *Server) encodeLine(r *events.Record) *[]byte {
	b := lineBufs.Get().(*[]byte)
	r.Instance = s.cfg.Events.Instance()
	*b = events.Append((*b)[:0], r)
	return b
}

// writeOnce writes a once-only record the state did not commit itself
// (no outbox) and waits for its sync.
func (s *Server) writeOnce(ctx context.Context, line []byte, t events.Type) error {
	f, err := s.cfg.Events.AddLine(line, t, true)
	if err == nil {
		err = f.Wait(ctx)
	}
	if err != nil {
		s.metrics.eventsRefused.Inc()
		s.eventsLog.error("event log: a record not written; its notice is refused (503)", "type", t.String(), "err", err)
	}
	return err
}
