package api

import (
	"net/url"
	"strconv"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
	"github.com/recbid/dspd/internal/jsoncodec"
	"github.com/recbid/dspd/tracker"
)

// A tracked bid's adm carries dspd's own tracking URLs (docs/protocol.md,
// "Tracking"):
//
//	PUBLIC/dsp/imp[/X]?b=BID&t=TIME&c=CAMPAIGN&r=CREATIVE&s=SIG       the impression
//	PUBLIC/dsp/click[/X]?b=BID&t=TIME&c=CAMPAIGN&r=CREATIVE&s=SIG     the click-through
//	PUBLIC/dsp/video[/X]?b=…&r=CREATIVE&e=EVENT&s=SIG                  a video's progress
//
// X is the exchange the bid was made for, TIME the bid's request time in
// Unix seconds, SIG the signature of the event and all of these (package
// tracker). An adm is a string in a JSON answer holding HTML, XML (VAST)
// or JSON (native): each URL is escaped for where it stands, the parts
// that depend only on the exchange or the creative once per load, the
// bid's own parts (its id, time and signatures: digits, hex and base64url,
// which need no escaping anywhere) as the answer is written.

// The tracker paths of the public listener.
const (
	ImpressionPath = "/dsp/imp"
	ClickPath      = "/dsp/click"
	VideoPath      = "/dsp/video"
)

// escContext is where a tracking URL stands in an adm.
type escContext uint8

const (
	inHTML escContext = iota // an HTML attribute (banner): & as &amp;
	inXML                    // VAST, in CDATA: as it is
	inJSON                   // a native response, a JSON string in the JSON answer
	numContexts
)

// hole is what an adm's part is followed by: nothing, a tracking URL, or
// the bid id itself (bidIDHole).
type hole struct {
	event tracker.Event // 0: none
	ctx   escContext
}

// bidIDHole is the hole of the bid's id (hex digits: no escaping).
const bidIDHole tracker.Event = 255

// admPart is a part of a tracked adm: literal bytes (already escaped for
// the answer), then a hole.
type admPart struct {
	lit  []byte
	hole hole
}

// trackWire is an exchange's tracker URL prefixes, up to the bid id, in
// each context, already escaped for the JSON answer.
type trackWire [tracker.Error + 1][numContexts][]byte

// newTrackWire builds the prefixes of the exchange ex.
func newTrackWire(publicURL string, ex *exchange.Exchange) *trackWire {
	var w trackWire
	suffix := ""
	if ex.ID != exchange.DefaultID {
		suffix = "/" + ex.ID
	}
	for _, e := range tracker.Events() {
		path := VideoPath
		switch e {
		case tracker.Impression:
			path = ImpressionPath
		case tracker.Click:
			path = ClickPath
		}
		for c := range numContexts {
			w[e][c] = escapeURLFor(c, publicURL+path+suffix+"?b=")
		}
	}
	return &w
}

// escapeURLFor escapes a URL's text for context c, as it stands inside a
// JSON string.
func escapeURLFor(c escContext, u string) []byte {
	var s string
	switch c {
	case inHTML:
		s = string(appendHTMLEscaped(nil, u))
	case inJSON: // a JSON string inside the native document, itself a JSON string
		inner := jsoncodec.AppendString(nil, u)
		s = string(inner[1 : len(inner)-1])
	default:
		s = u
	}
	out := jsoncodec.AppendString(nil, s)
	return out[1 : len(out)-1]
}

// amp is the query's separator in context c.
func amp(c escContext) string {
	if c == inHTML {
		return "&amp;"
	}
	return "&"
}

// trackIDs returns a creative's part of its tracking URLs in each context:
// &c=CAMPAIGN&r=CREATIVE, query-escaped.
func trackIDs(campaign, creative string) [numContexts][]byte {
	var out [numContexts][]byte
	for c := range numContexts {
		s := amp(c) + "c=" + url.QueryEscape(campaign) + amp(c) + "r=" + url.QueryEscape(creative)
		out[c] = []byte(s) // query-escaped text needs no HTML, XML or JSON escaping
	}
	return out
}

// appendTrackURL appends the tracking URL of event e of the bid tok names,
// for context c.
func (s *Server) appendTrackURL(dst []byte, tw *trackWire, ids *[numContexts][]byte, e tracker.Event, c escContext, tok *tracker.Token) []byte {
	dst = append(dst, tw[e][c]...)
	dst = tok.Bid.AppendHex(dst)
	dst = append(dst, amp(c)...)
	dst = append(dst, "t="...)
	dst = strconv.AppendInt(dst, tok.TimeS, 10)
	dst = append(dst, ids[c]...)
	if e != tracker.Impression && e != tracker.Click {
		dst = append(dst, amp(c)...)
		dst = append(dst, "e="...)
		dst = append(dst, e.String()...)
	}
	dst = append(dst, amp(c)...)
	dst = append(dst, "s="...)
	dst = s.signer.AppendSig(dst, e, tok)
	if e == tracker.Error { // VAST's macro, which the player fills in: not signed
		dst = append(dst, amp(c)...)
		dst = append(dst, "code=[ERRORCODE]"...)
	}
	return dst
}

// appendParts appends a creative's tracked adm parts (a banner's tracked
// tail, a video's VAST), with the tracking URLs of the bid in their holes,
// without its last cut bytes (the response's close, which an OpenRTB
// answer writes once).
func (s *Server) appendParts(dst []byte, parts []admPart, cr *creativeJSON, tw *trackWire, d *bidder.Decision, exchangeID string, timeS int64, cut int) []byte {
	tok := tracker.Token{Bid: d.BidID, TimeS: timeS, Exchange: exchangeID, Campaign: d.Campaign.ID, Creative: d.Creative.ID}
	for i, p := range parts {
		lit := p.lit
		if i == len(parts)-1 {
			lit = lit[:len(lit)-cut]
		}
		dst = append(dst, lit...)
		switch p.hole.event {
		case 0:
		case bidIDHole:
			dst = d.BidID.AppendHex(dst)
		default:
			dst = s.appendTrackURL(dst, tw, &cr.trackIDs, p.hole.event, p.hole.ctx, &tok)
		}
	}
	return dst
}
