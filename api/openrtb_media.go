package api

import (
	"strings"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// The parts of an impression beyond its banner (openrtb.md section 2):
// imp.video (AdCOM's video placement, OpenRTB 2.6 section 3.2.7),
// imp.native (Native 1.2's request, read by package nativead) and
// imp.pmp.deals (sections 3.2.11–12). Each is a used field: a malformed
// part is treated as absent (counted), and a media object that cannot be
// served gets no bid, never a 400.

// Limits of what an impression's media and deals hold.
const (
	maxImpDeals = 8  // deals of one impression tried; the rest not (counted as imp.pmp.deals)
	maxRqdDurs  = 16 // video.rqddurs kept
)

// videoImp is imp.video as the decision reads it.
type videoImp struct {
	present                bool
	mimes                  string // comma list, in the arena
	minDur, maxDur         int    // 0: no bound
	rqdDurs                [maxRqdDurs]int
	nrqd                   int
	protocols              uint32 // a bit per protocol id 1–31; 0: none listed
	w, h                   int
	linearity              int // 0: any; 2: non-linear, which dspd does not serve
	minBitrate, maxBitrate int
	plcmt, startDelay      int
	skip                   int
}

// openrtbDeal is one of imp.pmp.deals.
type openrtbDeal struct {
	id       string
	floor    bidder.Micros // in floorCur, rounded up
	floorCur string        // "": USD
	at       int           // 3: the floor is the deal's fixed price
	seatOK   bool          // wseat is absent, or lists dspd's seat
	wadomain string        // comma list; "": any advertiser
}

// video reads imp.video.
func (d *bidRequestDecoder) video(i int, imp *openrtbImp) {
	if !d.usedObject(fieldVideo, impField(i, ".video")) {
		return
	}
	v := &imp.video
	*v = videoImp{present: true}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "mimes":
			v.mimes = d.list(fieldVideo, "imp.video.mimes")
		case "minduration":
			v.minDur = d.videoInt(i, ".video.minduration", 0, 86400)
		case "maxduration":
			v.maxDur = d.videoInt(i, ".video.maxduration", 0, 86400)
		case "rqddurs":
			v.nrqd = d.intArray(v.rqdDurs[:], impField(i, ".video.rqddurs"), 1, 86400)
		case "protocols":
			var p [32]int
			n := d.intArray(p[:], impField(i, ".video.protocols"), 1, 31)
			for _, id := range p[:n] {
				v.protocols |= 1 << id
			}
		case "w":
			v.w = d.videoInt(i, ".video.w", 0, 10000)
		case "h":
			v.h = d.videoInt(i, ".video.h", 0, 10000)
		case "linearity":
			v.linearity = d.videoInt(i, ".video.linearity", 0, 2)
		case "minbitrate":
			v.minBitrate = d.videoInt(i, ".video.minbitrate", 0, 1<<30)
		case "maxbitrate":
			v.maxBitrate = d.videoInt(i, ".video.maxbitrate", 0, 1<<30)
		case "plcmt":
			v.plcmt = d.videoInt(i, ".video.plcmt", 0, 1000)
		case "startdelay":
			v.startDelay = d.videoInt(i, ".video.startdelay", -2, 86400)
		case "skip":
			v.skip = d.videoInt(i, ".video.skip", 0, 1)
		default: // placement, api, battr, ext…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// videoInt reads a used integer of imp.video in [lo, hi]; anything else
// reads as 0 (absent).
func (d *bidRequestDecoder) videoInt(i int, leaf string, lo, hi int64) int {
	n, _ := d.usedInt(fieldVideo, impField(i, leaf), lo, hi)
	return int(n)
}

// intArray reads an array of integers in [lo, hi] into dst, returning how
// many it holds; a bad item is dropped (counted), items beyond dst are not
// kept.
func (d *bidRequestDecoder) intArray(dst []int, f fieldName, lo, hi int64) int {
	switch d.value(jsoncodec.ArrayValue) {
	case absent:
		return 0
	case wrongKind:
		d.drop(fieldVideo, f, d.raw)
		return 0
	}
	n := 0
	for k := 0; d.it.ReadArray() && d.it.Err() == nil; k++ {
		v, p := d.usedInt(fieldVideo, f, lo, hi)
		if p == present && n < len(dst) {
			dst[n] = int(v)
			n++
		}
	}
	return n
}

// native reads imp.native: its request, for package nativead.
func (d *bidRequestDecoder) native(i int, imp *openrtbImp) {
	if !d.usedObject(fieldNative, impField(i, ".native")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "request":
			start := len(d.arena)
			d.arena = d.it.AppendRaw(d.arena)
			imp.nativeRaw = d.arena[start:]
		default: // ver, api, battr, ext…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// deals reads imp.pmp.deals.
func (d *bidRequestDecoder) deals(i int, imp *openrtbImp, seat string) {
	f := impField(i, ".pmp.deals")
	switch d.value(jsoncodec.ArrayValue) {
	case absent:
		return
	case wrongKind:
		d.drop(fieldDeals, f, d.raw)
		return
	}
	for k := 0; d.it.ReadArray() && d.it.Err() == nil; k++ {
		if imp.ndeals == len(imp.deals) {
			d.drop(fieldDeals, f, nil)
			d.it.Skip()
			continue
		}
		if d.value(jsoncodec.ObjectValue) != present {
			d.drop(fieldDeals, f, d.raw)
			continue
		}
		dl := openrtbDeal{seatOK: true}
		bad := false
		for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
			switch string(key) {
			case "id":
				v := d.usedText(fieldDeals, f, maxIDLen)
				if !bidder.IsPrintableASCII(v) {
					bad = true
				}
				dl.id = str(v)
			case "bidfloor":
				switch d.value(jsoncodec.NumberValue) {
				case present:
					m, ok := bidder.CeilMicros(d.number())
					if !ok {
						bad = true
					}
					dl.floor = m
				case wrongKind:
					bad = true
				}
			case "bidfloorcur":
				v := d.usedText(fieldDeals, f, maxStringLen)
				if len(v) != 0 && (len(v) != 3 || !bidder.IsLetters(v)) {
					bad = true
				}
				dl.floorCur = str(v)
			case "at":
				n, p := d.usedInt(fieldDeals, f, 1, 3)
				if p == wrongKind {
					bad = true
				}
				dl.at = int(n)
			case "wseat":
				dl.seatOK = listHas(d.list(fieldDeals, "imp.pmp.deals.wseat"), seat)
			case "wadomain":
				dl.wadomain = d.list(fieldDeals, "imp.pmp.deals.wadomain")
			default: // ext…
				d.it.Skip()
			}
			if d.it.Err() != nil {
				return
			}
		}
		// A deal dspd cannot read whole is not bid in: a misread floor
		// or id would be a wrong bid.
		if dl.id == "" || bad {
			d.drop(fieldDeals, f, nil)
			continue
		}
		imp.deals[imp.ndeals] = dl
		imp.ndeals++
	}
}

// listHas reports whether a comma list holds s (case-insensitive).
func listHas(list, s string) bool {
	for rest := list; rest != ""; {
		var item string
		item, rest, _ = strings.Cut(rest, ",")
		if strings.EqualFold(strings.TrimSpace(item), s) {
			return true
		}
	}
	return false
}
