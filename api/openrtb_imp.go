package api

import (
	"context"
	"strings"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/nativead"
)

// One impression's decision (openrtb.md section 3): its kind (a banner if
// it has one, else a video, else a native ad: Choice, one kind per
// impression), its deals first and then, unless the auction is private,
// the open auction.

// impDecision is an impression's decision and what its answer needs.
type impDecision struct {
	d     bidder.Decision
	floor bidder.Micros // the floor it bid over, in USD micros (a deal's for a deal bid)
	vast  int           // a video's VAST version (an index of vastVersions)
}

// decideImp decides impression i. Deals come first, each with its own
// floor (converted as the impression's is), fixed price (at 3) and
// advertisers (wadomain), and only when dspd's seat may bid (wseat); the
// best-paid deal bid is answered, because deals are negotiated inventory.
// Without one, and unless the auction is private, the open auction's
// campaigns bid over the impression's floor. Only the decision answered
// is kept (Keep); the others leave no trace in the books.
func (s *Server) decideImp(ctx context.Context, cur *serving, base *bidder.Request, st *openrtbState, i int) impDecision {
	imp := &st.req.imps[i]
	req := *base
	req.ImpID, req.Secure = imp.id, imp.secure
	if ok := s.impKind(cur, &req, st, i); !ok {
		return impDecision{d: bidder.Decision{Reason: bidder.ReasonNoMatch}}
	}
	reason := bidder.ReasonNone
	var best impDecision
	var bestReq bidder.Request
	found := false
	for k := range imp.ndeals {
		dl := &imp.deals[k]
		if !dl.seatOK {
			continue // the deal is for other seats
		}
		dreq := req
		dreq.Deal, dreq.DealADomains = dl.id, dl.wadomain
		dreq.Floor = s.toUSD(cur, &dreq, dl.floor, dl.floorCur)
		if dl.at == 3 {
			dreq.FixedPrice = dreq.Floor
		}
		d := s.chooseImp(ctx, cur, &dreq, imp)
		if d.d.Shed {
			return d
		}
		if !d.d.Bid() {
			reason = max(reason, d.d.Reason)
			continue
		}
		if !found || d.d.Price > best.d.Price {
			best, bestReq, found = d, dreq, true
		}
	}
	if !found && !imp.private {
		req.Floor = s.toUSD(cur, &req, imp.floor, imp.floorCur)
		d := s.chooseImp(ctx, cur, &req, imp)
		if d.d.Shed {
			return d
		}
		if d.d.Bid() {
			best, bestReq, found = d, req, true
		} else {
			reason = max(reason, d.d.Reason)
		}
	}
	if !found {
		if reason == bidder.ReasonNone { // nothing to try: no deal of ours, a private auction
			reason = bidder.ReasonNoMatch
		}
		return impDecision{d: bidder.Decision{Reason: reason}, floor: req.Floor}
	}
	if err := s.engine.Keep(ctx, &bestReq, &best.d); err != nil {
		s.stateError(err)
	}
	return best
}

// toUSD converts a floor to USD micros with the serving rates; one in a
// currency without a rate makes the request a no bid, reason currency.
func (s *Server) toUSD(cur *serving, req *bidder.Request, floor bidder.Micros, currency string) bidder.Micros {
	if currency == "" || strings.EqualFold(currency, "USD") {
		return floor
	}
	usd, ok := cur.rates.ToUSD(currency, floor)
	if !ok {
		req.Cur = currency // no rate: no bid, reason currency
	}
	return usd
}

// impKind sets the request's creative kind and chooser from impression i:
// false when it has nothing dspd can serve (audio only, a video without
// mimes, a native request that cannot be read).
func (s *Server) impKind(cur *serving, req *bidder.Request, st *openrtbState, i int) bool {
	imp := &st.req.imps[i]
	switch {
	case imp.banner:
		req.Kind = bidder.Banner
		return imp.nsizes > 0
	case imp.video.present:
		if imp.video.mimes == "" || imp.video.linearity == 2 {
			return false // mimes are required; dspd's videos are linear
		}
		st.videoCh[i] = videoChooser{v: &imp.video}
		req.Kind, req.Chooser = bidder.Video, &st.videoCh[i]
		return true
	case imp.nativeRaw != nil:
		if err := nativead.ParseRequest(imp.nativeRaw, &st.natives[i]); err != nil {
			s.metrics.openrtb.invalid[fieldNative].Inc()
			return false
		}
		st.nativeCh[i] = nativeChooser{req: &st.natives[i], creatives: cur.creatives}
		req.Kind, req.Chooser = bidder.Native, &st.nativeCh[i]
		return true
	}
	return false
}

// chooseImp chooses (without keeping) an impression's bid for req: for a
// banner, one Choose per size, in order (banner.w/h first, then
// banner.format[]), the highest price kept (ties: the first size), req's
// size set to it; for a video or native ad, one Choose.
func (s *Server) chooseImp(ctx context.Context, cur *serving, req *bidder.Request, imp *openrtbImp) impDecision {
	cat := cur.catalog
	if req.Kind != bidder.Banner {
		d, err := s.engine.Choose(ctx, cat, req)
		if err != nil {
			s.stateError(err)
		}
		out := impDecision{d: d, floor: req.Floor}
		if d.Bid() && req.Kind == bidder.Video {
			out.vast = vastFor(vastIndex(d.Creative.VASTVersion), imp.video.protocols)
		}
		return out
	}
	var best bidder.Decision
	var bestW, bestH int
	found := false
	reason := bidder.ReasonNone
	for k := 0; k < imp.nsizes; k++ {
		req.W, req.H = int(imp.sizes[k].w), int(imp.sizes[k].h)
		d, err := s.engine.Choose(ctx, cat, req)
		if err != nil {
			s.stateError(err)
		}
		if d.Shed {
			return impDecision{d: d, floor: req.Floor} // too late for every size
		}
		if !d.Bid() {
			reason = max(reason, d.Reason)
			continue
		}
		if !found || d.Price > best.Price {
			best, bestW, bestH, found = d, req.W, req.H, true
		}
	}
	if !found {
		return impDecision{d: bidder.Decision{Reason: reason}, floor: req.Floor}
	}
	req.W, req.H = bestW, bestH
	return impDecision{d: best, floor: req.Floor}
}
