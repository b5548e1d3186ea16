package api

import (
	"strings"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/nativead"
)

// The choosers of video and native creatives (bidder.Chooser): given a
// campaign, the creative that fits the impression, or -1.

// videoChooser fits video creatives to imp.video (openrtb.md section 3,
// "Video"): the creative's mime is one of mimes; its duration is one of
// rqddurs, or within minduration–maxduration; its VAST version, or an
// older one, is an InLine protocol the impression accepts (all when none
// is listed); its bitrate within minbitrate–maxbitrate; and, when the
// impression gives a size, its aspect ratio within 10 % of the
// impression's (players scale). Of those that fit, the one of the
// impression's size, else the one whose area is nearest.
type videoChooser struct{ v *videoImp }

func (c *videoChooser) Choose(camp *bidder.Campaign, _ int) int {
	best, bestDist := -1, 0
	for i := range camp.Creatives {
		cr := &camp.Creatives[i]
		if cr.Kind != bidder.Video || !c.fits(cr) {
			continue
		}
		dist := 0
		if c.v.w > 0 && c.v.h > 0 {
			dist = abs(cr.W*cr.H - c.v.w*c.v.h)
		}
		if best < 0 || dist < bestDist {
			best, bestDist = i, dist
		}
	}
	return best
}

func (c *videoChooser) fits(cr *bidder.Creative) bool {
	v := c.v
	if !listHasFold(v.mimes, cr.Mime) {
		return false
	}
	if v.nrqd > 0 {
		ok := false
		for _, d := range v.rqdDurs[:v.nrqd] {
			ok = ok || d == cr.DurationS
		}
		if !ok {
			return false
		}
	} else if cr.DurationS < v.minDur || (v.maxDur > 0 && cr.DurationS > v.maxDur) {
		return false
	}
	if vastFor(vastIndex(cr.VASTVersion), v.protocols) < 0 {
		return false
	}
	if (v.minBitrate > 0 && cr.BitrateKbps < v.minBitrate) || (v.maxBitrate > 0 && cr.BitrateKbps > v.maxBitrate) {
		return false
	}
	if v.w > 0 && v.h > 0 { // |cr.W/cr.H − v.w/v.h| ≤ 10 % of v.w/v.h
		a, b := cr.W*v.h, v.w*cr.H
		if 10*abs(a-b) > b {
			return false
		}
	}
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// listHasFold reports whether a comma list holds s, any case.
func listHasFold(list, s string) bool {
	for rest := list; rest != ""; {
		var item string
		item, rest, _ = strings.Cut(rest, ",")
		if strings.EqualFold(strings.TrimSpace(item), s) {
			return true
		}
	}
	return false
}

// nativeChooser fits native creatives to a native request with package
// nativead: the first, in file order, that fills every required asset.
type nativeChooser struct {
	req       *nativead.Request
	creatives []creativeJSON // the serving set's, by slot
}

func (c *nativeChooser) Choose(camp *bidder.Campaign, base int) int {
	for i := range camp.Creatives {
		if camp.Creatives[i].Kind != bidder.Native {
			continue
		}
		if _, ok := c.creatives[base+i].native.Fit(c.req); ok {
			return i
		}
	}
	return -1
}
