package api

import (
	"strconv"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/jsoncodec"
	"github.com/recbid/dspd/nativead"
	"github.com/recbid/dspd/tracker"
)

// A bid response is
//
//	{"id":ID,"bidid":"B","cur":"USD","seatbid":[{"seat":"SEAT","bid":[{"id":"B","impid":IMPID
//	,"price":…,"adid":…,"nurl":               (creative fragment, head)
//	"…/dsp/win?bidid=B&price=${AUCTION_PRICE}" (the exchange's nurl, see wire)
//	,"adm":"…"}]}]}                            (creative fragment, tail)
//
// where everything but the request's id, impid and the bid id B depends only
// on the configuration, the exchange or the winning creative. Those parts
// are encoded once per load, so a response is a few copies.

// nurlKey ends a creative's head fragment.
const nurlKey = `,"nurl":`

// creativeJSON is the pre-encoded part of a bid response for one creative.
type creativeJSON struct {
	kind bidder.CreativeKind
	head []byte // banners: from ,"price": to ,"nurl": (recbid)
	tail []byte // banners: from ,"adm": to the end of the response (untracked)
	// tracked is the tail of a tracked bid (trackurl.go): its adm with
	// holes for the bid's tracking URLs, and trackIDs the creative's part
	// of those URLs.
	tracked  []admPart
	trackIDs [numContexts][]byte
	// fields is what an OpenRTB bid writes after its price: from ,"adid":
	// to ,"h": and its value (no size for a native ad).
	fields []byte
	// vast is a video's tracked adm in each VAST version it can be
	// answered in (vast.go); native is a native ad prepared for package
	// nativead.
	vast   [len(vastVersions)][]admPart
	native *nativead.PreparedCreative
}

// encodeCreatives pre-encodes the response fragments of every creative of
// cat, indexed by slot.
func encodeCreatives(cat *bidder.Catalog) []creativeJSON {
	out := make([]creativeJSON, cat.NumCreatives())
	cat.EachCreative(func(slot int, c *bidder.Campaign, cr *bidder.Creative) {
		out[slot] = encodeCreative(c, cr)
	})
	return out
}

func encodeCreative(c *bidder.Campaign, cr *bidder.Creative) creativeJSON {
	out := creativeJSON{kind: cr.Kind, trackIDs: trackIDs(c.ID, cr.ID), fields: appendFields(nil, c, cr)}
	switch cr.Kind {
	case bidder.Video:
		out.vast = encodeVAST(c, cr)
		return out
	case bidder.Native:
		out.native = nativead.Prepare(&nativead.Creative{Title: cr.Title, Body: cr.Body, Sponsored: cr.Sponsored, CTA: cr.CTA,
			ImageURL: cr.ImageURL, ImageW: cr.ImageW, ImageH: cr.ImageH, IconURL: cr.IconURL, IconW: cr.IconW, IconH: cr.IconH,
			ClickURL: cr.ClickURL})
		return out
	}
	out.head, out.tail, out.tracked = encodeBanner(c, cr)
	return out
}

// appendFields appends an OpenRTB bid's fields from ,"adid": on: the
// creative's and campaign's ids, adomain and cat, and a banner's or
// video's size.
func appendFields(b []byte, c *bidder.Campaign, cr *bidder.Creative) []byte {
	b = append(b, `,"adid":`...)
	b = jsoncodec.AppendString(b, cr.ID)
	b = append(b, `,"cid":`...)
	b = jsoncodec.AppendString(b, c.ID)
	b = append(b, `,"crid":`...)
	b = jsoncodec.AppendString(b, cr.ID)
	b = append(b, `,"adomain":`...)
	b = appendJSONList(b, c.ADomain)
	b = append(b, `,"cat":`...)
	b = appendJSONList(b, c.Cat)
	if cr.Kind != bidder.Native {
		b = append(b, `,"w":`...)
		b = strconv.AppendInt(b, int64(cr.W), 10)
		b = append(b, `,"h":`...)
		b = strconv.AppendInt(b, int64(cr.H), 10)
	}
	return b
}

// encodeBanner returns a banner's recbid fragments: its head (price to
// nurl), its untracked tail and its tracked parts.
func encodeBanner(c *bidder.Campaign, cr *bidder.Creative) (head, tail []byte, tracked []admPart) {
	head = append(head, `,"price":`...)
	head = c.BidCPM.AppendDecimal(head)
	head = appendFields(head, c, cr)
	head = append(head, nurlKey...)

	// The banner: the creative's image in a link to its click URL; tracked,
	// the link goes through dspd's click URL and an impression pixel
	// follows the link.
	img := []byte(`" target="_blank"><img src="`)
	img = appendHTMLEscaped(img, cr.ImageURL)
	img = append(img, `" width="`...)
	img = strconv.AppendInt(img, int64(cr.W), 10)
	img = append(img, `" height="`...)
	img = strconv.AppendInt(img, int64(cr.H), 10)
	img = append(img, `" alt="`...)
	img = appendHTMLEscaped(img, c.Advertiser)
	img = append(img, `"></a>`...)

	adm := appendHTMLEscaped([]byte(`<a href="`), cr.ClickURL)
	adm = append(adm, img...)
	var t []byte
	t = append(t, `,"adm":`...)
	t = jsoncodec.AppendString(t, string(adm))
	t = append(t, `}`+responseClose...)

	tracked = []admPart{
		{lit: append([]byte(`,"adm":"`), jsonInner(`<a href="`)...), hole: hole{tracker.Click, inHTML}},
		{lit: jsonInner(string(img) + `<img src="`), hole: hole{tracker.Impression, inHTML}},
		{lit: append(jsonInner(`" width="1" height="1" alt="" style="display:none">`), `"}`+responseClose...)},
	}
	return head, t, tracked
}

// jsonInner returns s escaped as the inside of a JSON string.
func jsonInner(s string) []byte {
	b := jsoncodec.AppendString(nil, s)
	return b[1 : len(b)-1]
}

func appendJSONList(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsoncodec.AppendString(b, s)
	}
	return append(b, ']')
}

// seatJSON returns the part of every bid response between the two bid ids:
// `","cur":"USD","seatbid":[{"seat":SEAT,"bid":[{"id":"`.
func seatJSON(seat string) []byte {
	b := []byte(`","cur":"USD","seatbid":[{"seat":`)
	b = jsoncodec.AppendString(b, seat)
	return append(b, `,"bid":[{"id":"`...)
}
