package api

import (
	"strconv"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/tracker"
)

// A video bid's adm is a VAST InLine document (VAST 2.0 to 4.2; IAB Tech
// Lab), written from parts encoded once per catalogue load (the creative's
// and its campaign's fields, escaped for XML and then for the answer's JSON
// string) and holes for the bid's own: its tracking URLs, in CDATA, and,
// from VAST 4.1, its id as AdServingId:
//
//	<VAST version="4.2"><Ad id="CRID"><InLine><AdSystem>dspd</AdSystem>
//	 <AdServingId>BIDID</AdServingId>                                  (4.1+)
//	 <AdTitle>ADVERTISER</AdTitle>
//	 <Impression><![CDATA[…/dsp/imp…]]></Impression>
//	 <Error><![CDATA[…/dsp/video…&e=error…&code=[ERRORCODE]]]></Error>
//	 <Creatives><Creative id="CRID" adId="CRID">
//	  <UniversalAdId idRegistry="unknown">unknown</UniversalAdId>       (4.0+)
//	  <Linear><Duration>HH:MM:SS</Duration>
//	   <TrackingEvents><Tracking event="start"><![CDATA[…]]></Tracking> … complete</TrackingEvents>
//	   <VideoClicks><ClickThrough><![CDATA[…/dsp/click…]]></ClickThrough></VideoClicks>
//	   <MediaFiles><MediaFile delivery="progressive" type="MIME" width="W" height="H" bitrate="KBPS"><![CDATA[MEDIA]]></MediaFile></MediaFiles>
//	  </Linear></Creative></Creatives></InLine></Ad></VAST>
//
// A creative is answered in its own VAST version, or in an older one the
// impression's protocols accept (vastFor): every element above exists in
// every version that writes it.

// vastVersions are the VAST versions dspd writes, oldest first, with the
// OpenRTB protocol id of each one's InLine (AdCOM's list: 2 VAST 2.0, 3
// VAST 3.0, 7 VAST 4.0, 11 VAST 4.1, 13 VAST 4.2; the wrapper ids are not
// InLine, which is all dspd answers).
var vastVersions = [...]struct {
	name     string
	protocol int
}{{"2.0", 2}, {"3.0", 3}, {"4.0", 7}, {"4.1", 11}, {"4.2", 13}}

// vastIndex returns the index of a version name in vastVersions.
func vastIndex(name string) int {
	for i, v := range vastVersions {
		if v.name == name {
			return i
		}
	}
	return len(vastVersions) - 1
}

// vastFor returns the VAST version (an index in vastVersions) a creative of
// version own is answered in for an impression that accepts protocols (a
// bit per protocol id; 0: none listed, so the creative's own), or -1 when
// the impression accepts none it can be written in: the newest accepted
// version not newer than the creative's.
func vastFor(own int, protocols uint32) int {
	if protocols == 0 {
		return own
	}
	for i := own; i >= 0; i-- {
		if protocols&(1<<vastVersions[i].protocol) != 0 {
			return i
		}
	}
	return -1
}

// encodeVAST returns the parts of a video creative's tracked adm in each
// version up to its own (nil for the newer ones), the answer's tail after
// the adm included.
func encodeVAST(c *bidder.Campaign, cr *bidder.Creative) [len(vastVersions)][]admPart {
	var out [len(vastVersions)][]admPart
	own := vastIndex(cr.VASTVersion)
	for v := 0; v <= own; v++ {
		out[v] = vastParts(c, cr, v)
	}
	return out
}

func vastParts(c *bidder.Campaign, cr *bidder.Creative, v int) []admPart {
	var parts []admPart
	var lit []byte // XML text of the current part, escaped for the answer at each hole
	cut := func(h hole) {
		parts = append(parts, admPart{lit: jsonInner(string(lit)), hole: h})
		lit = lit[:0]
	}
	version := vastVersions[v].name
	lit = append(lit, `<VAST version="`+version+`"><Ad id="`...)
	lit = appendXMLEscaped(lit, cr.ID)
	lit = append(lit, `"><InLine><AdSystem>dspd</AdSystem>`...)
	if v >= vastIndex("4.1") {
		lit = append(lit, `<AdServingId>`...)
		cut(hole{event: bidIDHole})
		lit = append(lit, `</AdServingId>`...)
	}
	lit = append(lit, `<AdTitle>`...)
	lit = appendXMLEscaped(lit, c.Advertiser)
	lit = append(lit, `</AdTitle><Impression><![CDATA[`...)
	cut(hole{tracker.Impression, inXML})
	lit = append(lit, `]]></Impression><Error><![CDATA[`...)
	cut(hole{tracker.Error, inXML})
	lit = append(lit, `]]></Error><Creatives><Creative id="`...)
	lit = appendXMLEscaped(lit, cr.ID)
	lit = append(lit, `" adId="`...)
	lit = appendXMLEscaped(lit, cr.ID)
	lit = append(lit, `">`...)
	if v >= vastIndex("4.0") {
		lit = append(lit, `<UniversalAdId idRegistry="unknown"`...)
		if v == vastIndex("4.0") {
			lit = append(lit, ` idValue="unknown"`...)
		}
		lit = append(lit, `>unknown</UniversalAdId>`...)
	}
	lit = append(lit, `<Linear><Duration>`...)
	lit = appendDuration(lit, cr.DurationS)
	lit = append(lit, `</Duration><TrackingEvents>`...)
	for _, e := range tracker.VideoEvents() {
		lit = append(lit, `<Tracking event="`+e.String()+`"><![CDATA[`...)
		cut(hole{e, inXML})
		lit = append(lit, `]]></Tracking>`...)
	}
	lit = append(lit, `</TrackingEvents><VideoClicks><ClickThrough><![CDATA[`...)
	cut(hole{tracker.Click, inXML})
	lit = append(lit, `]]></ClickThrough></VideoClicks><MediaFiles><MediaFile delivery="progressive" type="`...)
	lit = appendXMLEscaped(lit, cr.Mime)
	lit = append(lit, `" width="`...)
	lit = strconv.AppendInt(lit, int64(cr.W), 10)
	lit = append(lit, `" height="`...)
	lit = strconv.AppendInt(lit, int64(cr.H), 10)
	lit = append(lit, `" bitrate="`...)
	lit = strconv.AppendInt(lit, int64(cr.BitrateKbps), 10)
	lit = append(lit, `"><![CDATA[`...)
	lit = appendCDATA(lit, cr.MediaURL)
	lit = append(lit, `]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`...)
	parts = append(parts, admPart{lit: append(jsonInner(string(lit)), `"}`+responseClose...)})
	parts[0].lit = append([]byte(`,"adm":"`), parts[0].lit...)
	return parts
}

// appendDuration writes seconds as VAST's HH:MM:SS.
func appendDuration(b []byte, s int) []byte {
	two := func(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
	b = two(b, s/3600%100)
	b = append(b, ':')
	b = two(b, s/60%60)
	b = append(b, ':')
	return two(b, s%60)
}

// appendXMLEscaped escapes text for XML content and attributes.
func appendXMLEscaped(b []byte, s string) []byte { return appendHTMLEscaped(b, s) }

// appendCDATA writes s inside a CDATA section: a "]]>" in it (a URL never
// has one; the loader does not forbid it) is split across two sections.
func appendCDATA(b []byte, s string) []byte {
	for i := 0; i+3 <= len(s); i++ {
		if s[i:i+3] == "]]>" {
			b = append(b, s[:i+2]...)
			b = append(b, "]]><![CDATA["...)
			return appendCDATA(b, s[i+2:])
		}
	}
	return append(b, s...)
}
