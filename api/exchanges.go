package api

import (
	"sync"

	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// Routes of the public listener: each exchange X has its own bid and win
// paths (bidPath+"/X"); the bare paths belong to exchange.DefaultID.
const (
	RecbidPath  = "/dsp/recbid"
	WinPath     = "/dsp/win"
	OpenRTBPath = "/openrtb2/bid"
)

// wire is what the endpoints of one exchange need, built at each load: the
// exchange, its win notice URL pre-encoded for the bid answers, and its
// metrics.
type wire struct {
	ex          *exchange.Exchange
	fingerprint string // of its price rules, kept with each bid
	nurlOpen    []byte // `"<public-url>/dsp/win[/X]?bidid=`, JSON-escaped, the string left open for the bid id
	nurlClose   []byte // `&price=<macro>"`
	burlClose   []byte // `&price=<macro>&billing=1"`
	track       *trackWire
	m           *exchangeMetrics
}

// newWire pre-encodes the answers' parts of ex.
func (s *Server) newWire(ex *exchange.Exchange) *wire {
	path := WinPath
	if ex.ID != exchange.DefaultID {
		path += "/" + ex.ID
	}
	open := jsoncodec.AppendString(nil, s.cfg.PublicURL+path+"?bidid=")
	return &wire{
		ex:          ex,
		fingerprint: ex.Pricing.Fingerprint(),
		nurlOpen:    open[:len(open)-1],
		nurlClose:   jsoncodec.AppendString(nil, "&price="+ex.PriceMacro)[1:],
		burlClose:   jsoncodec.AppendString(nil, "&price="+ex.PriceMacro+"&billing=1")[1:],
		track:       newTrackWire(s.cfg.PublicURL, ex),
		m:           s.metrics.exchange(ex.ID),
	}
}

// appendNURL appends a bid's win notice URL as a JSON string.
func (wr *wire) appendNURL(b, bidID []byte) []byte {
	b = append(b, wr.nurlOpen...)
	b = append(b, bidID...)
	return append(b, wr.nurlClose...)
}

// appendBURL appends a bid's billing notice URL as a JSON string.
func (wr *wire) appendBURL(b, bidID []byte) []byte {
	b = append(b, wr.nurlOpen...)
	b = append(b, bidID...)
	return append(b, wr.burlClose...)
}

// bidWire returns the wire of the exchange a bid request's path names in
// the serving set, or answers 404 and returns nil.
func (s *Server) bidWire(exchangeID string, cur *serving, resp *Response) *wire {
	var wr *wire
	if cur != nil {
		wr = cur.wires[exchangeID]
	}
	if wr == nil {
		resp.NotFound()
	}
	return wr
}

// admit checks that the exchange lets this client ask for bids (its
// sources and token); a refusal is counted and its 403 message returned.
func (s *Server) admit(req *Request, wr *wire) (refusal string, ok bool) {
	if wr.ex.Open() {
		return "", true
	}
	client := s.cfg.TrustedProxies.Client(req.Peer.Addr(), req.ForwardedFor)
	r := wr.ex.Admit(client, req.Authorization)
	if r == exchange.Admitted {
		return "", true
	}
	wr.m.refused[r].Inc()
	if r == exchange.RefusedToken {
		return "a bid request for exchange " + wr.ex.ID + " needs its bearer token (Authorization: Bearer …)", false
	}
	return "this source may not ask exchange " + wr.ex.ID + " for bids", false
}

// pricings remembers the price rules of every exchange ever loaded, by
// fingerprint, so that a bid's win notice is read by the rules it was made
// under, even after a reload re-keyed or removed its exchange.
type pricings struct{ m sync.Map } // fingerprint → *exchange.Pricing

func (p *pricings) add(set *exchange.Set) {
	for _, ex := range set.All() {
		p.m.LoadOrStore(ex.Pricing.Fingerprint(), ex.Pricing)
	}
}

func (p *pricings) get(fingerprint string) *exchange.Pricing {
	v, ok := p.m.Load(fingerprint)
	if !ok {
		return nil
	}
	return v.(*exchange.Pricing)
}
