package nativead

import "strconv"

// The answer's fixed parts, already escaped as the inside of a JSON
// string: each '"' of the native document is \".
const (
	openPlain   = `{\"ver\":\"1.2\",\"assets\":[`
	openWrapped = `{\"native\":` + openPlain
	assetOpen   = `{\"id\":`
	linkOpen    = `],\"link\":{\"url\":\"`
	linkClose   = `\"}`
	eventOpen   = `,\"eventtrackers\":[{\"event\":1,\"method\":1,\"url\":\"`
	eventClose  = `\"}]`
	impOpen     = `,\"imptrackers\":[\"`
	impClose    = `\"]`
	titleOpen   = `\"title\":{\"text\":\"`
	imgOpen     = `\"img\":{\"url\":\"`
	dataOpen    = `\"data\":{\"value\":\"`
	textClose   = `\"}}` // the text's quote, its object's brace, the asset's brace
)

// AppendResponse appends to dst the native answer of plan p (from Fit
// with cr) as the inside of a JSON string, so that the caller writes
// "adm":" + this + ". The answer is Native 1.2's response object:
//
//	{"ver":"1.2","assets":[{"id":ID,"title":{"text":…}},
//	  {"id":ID,"img":{"url":…,"w":W,"h":H}},{"id":ID,"data":{"value":…}}],
//	 "link":{"url":CLICK},"eventtrackers":[{"event":1,"method":1,"url":IMP}]}
//
// with "imptrackers":[IMP] instead of eventtrackers when p says so
// (Plan.Tracking), and wrapped in {"native":…} when the request was. The
// creative's texts and URLs are escaped here, twice (once as JSON strings
// of the native document, once as that document in the adm string).
//
// clickURL and impURL are written as they are: the caller gives them
// escaped for that same double context, the text a JSON string inside a
// JSON string holds between its quotes (api's tracking URLs for a native
// context are exactly that). clickURL empty: the link is cr.ClickURL;
// impURL empty: no impression tracker is written. A slot cr cannot fill
// (a plan from another creative) is left out. Nothing is allocated when
// dst has room.
func AppendResponse(dst []byte, p *Plan, cr *Creative, clickURL, impURL []byte) []byte {
	return appendResponse(dst, p, nil, cr, clickURL, impURL)
}

// appendResponse writes from pc when it is not nil, else from cr.
func appendResponse(dst []byte, p *Plan, pc *PreparedCreative, cr *Creative, clickURL, impURL []byte) []byte {
	if p.wrapped {
		dst = append(dst, openWrapped...)
	} else {
		dst = append(dst, openPlain...)
	}
	first := true
	for _, s := range p.slots[:p.n] {
		var frag []byte
		if pc != nil {
			if frag = pc.frag[s.Fill]; frag == nil {
				continue
			}
		} else if !has(cr, s.Fill) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, assetOpen...)
		dst = strconv.AppendInt(dst, int64(s.ID), 10)
		dst = append(dst, ',')
		if pc != nil {
			dst = append(dst, frag...)
		} else {
			dst = appendFrag(dst, s.Fill, cr)
		}
	}
	dst = append(dst, linkOpen...)
	switch {
	case len(clickURL) > 0:
		dst = append(dst, clickURL...)
	case pc != nil:
		dst = append(dst, pc.click...)
	default:
		dst = appendEscaped2(dst, cr.ClickURL)
	}
	dst = append(dst, linkClose...)
	if len(impURL) > 0 {
		if p.tracking == TrackEvent {
			dst = append(dst, eventOpen...)
			dst = append(dst, impURL...)
			dst = append(dst, eventClose...)
		} else {
			dst = append(dst, impOpen...)
			dst = append(dst, impURL...)
			dst = append(dst, impClose...)
		}
	}
	dst = append(dst, '}')
	if p.wrapped {
		dst = append(dst, '}')
	}
	return dst
}

// has reports whether cr has what fl fills an asset with.
func has(cr *Creative, fl Fill) bool {
	switch fl {
	case FillTitle:
		return cr.Title != ""
	case FillImage:
		return cr.ImageURL != ""
	case FillIcon:
		return cr.IconURL != ""
	case FillSponsored:
		return cr.Sponsored != ""
	case FillBody:
		return cr.Body != ""
	case FillCTA:
		return cr.CTA != ""
	}
	return false
}

// appendFrag appends an asset filled with fl from cr, after its id: from
// its kind's key to the asset's closing brace.
func appendFrag(dst []byte, fl Fill, cr *Creative) []byte {
	switch fl {
	case FillTitle:
		return appendText(append(dst, titleOpen...), cr.Title)
	case FillImage:
		return appendImg(dst, cr.ImageURL, cr.ImageW, cr.ImageH)
	case FillIcon:
		return appendImg(dst, cr.IconURL, cr.IconW, cr.IconH)
	case FillSponsored:
		return appendText(append(dst, dataOpen...), cr.Sponsored)
	case FillBody:
		return appendText(append(dst, dataOpen...), cr.Body)
	case FillCTA:
		return appendText(append(dst, dataOpen...), cr.CTA)
	}
	return dst
}

func appendText(dst []byte, s string) []byte {
	return append(appendEscaped2(dst, s), textClose...)
}

// appendImg writes an image with its size, each dimension when known.
func appendImg(dst []byte, url string, w, h int) []byte {
	dst = appendEscaped2(append(dst, imgOpen...), url)
	dst = append(dst, `\"`...)
	if w > 0 {
		dst = append(dst, `,\"w\":`...)
		dst = strconv.AppendInt(dst, int64(w), 10)
	}
	if h > 0 {
		dst = append(dst, `,\"h\":`...)
		dst = strconv.AppendInt(dst, int64(h), 10)
	}
	return append(dst, '}', '}')
}
