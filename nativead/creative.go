package nativead

import "unicode/utf8"

// Creative is what a native ad can be made of. Empty strings are absent:
// an asset that needs one is not filled. Sizes are in pixels; 0 is
// unknown, which meets no size the request sets.
type Creative struct {
	Title, Body, Sponsored, CTA string
	ImageURL                    string
	ImageW, ImageH              int
	IconURL                     string // "": no icon
	IconW, IconH                int
	ClickURL                    string // the landing page; required
}

// facts is what Fit needs to know of a creative.
type facts struct {
	title, body, sponsored, cta int // lengths in characters (runes); 0: absent
	image, icon                 bool
	imageW, imageH              int
	iconW, iconH                int
	click                       bool
}

// runes counts s's characters as utf8.RuneCountInString does: a byte
// that is not part of valid UTF-8 counts as one (and is written as
// U+FFFD, one character).
func runes(s string) int { return utf8.RuneCountInString(s) }

func factsOf(cr *Creative) facts {
	return facts{
		title: runes(cr.Title), body: runes(cr.Body), sponsored: runes(cr.Sponsored), cta: runes(cr.CTA),
		image: cr.ImageURL != "", imageW: cr.ImageW, imageH: cr.ImageH,
		icon: cr.IconURL != "", iconW: cr.IconW, iconH: cr.IconH,
		click: cr.ClickURL != "",
	}
}

// PreparedCreative is a Creative made ready for bidding, once per
// catalogue load: its lengths in characters counted, and each asset it
// can fill written as it stands in the answer (escaped twice), so that
// fitting and answering only compare and copy. It is read-only, safe for
// concurrent use.
type PreparedCreative struct {
	f     facts
	frag  [numFills][]byte // the asset after its id, to its closing brace
	click []byte           // ClickURL, escaped twice
}

// Prepare makes cr ready for bidding; cr is not kept.
func Prepare(cr *Creative) *PreparedCreative {
	pc := &PreparedCreative{f: factsOf(cr)}
	for fl := Fill(1); fl < numFills; fl++ {
		if has(cr, fl) {
			pc.frag[fl] = appendFrag(nil, fl, cr)
		}
	}
	pc.click = appendEscaped2(nil, cr.ClickURL)
	return pc
}

// Fit is the package's Fit for the prepared creative.
func (pc *PreparedCreative) Fit(req *Request) (Plan, bool) { return fit(req, &pc.f) }

// AppendResponse is the package's AppendResponse for the prepared
// creative: only copies.
func (pc *PreparedCreative) AppendResponse(dst []byte, p *Plan, clickURL, impURL []byte) []byte {
	return appendResponse(dst, p, pc, nil, clickURL, impURL)
}
