package nativead

// Fill is what an asset of the answer is filled with.
type Fill uint8

// The fills.
const (
	FillNone      Fill = iota
	FillTitle          // title.text: Creative.Title
	FillImage          // img: the main image
	FillIcon           // img: the icon
	FillSponsored      // data.value: Creative.Sponsored
	FillBody           // data.value: Creative.Body
	FillCTA            // data.value: Creative.CTA
	numFills
)

// Slot is an asset of the answer: the request's asset id, and its fill.
type Slot struct {
	ID   int
	Fill Fill
}

// Tracking is how the answer carries the impression tracker.
type Tracking uint8

// The ways of tracking the impression.
const (
	// TrackEvent: "eventtrackers":[{"event":1,"method":1,"url":…}], when
	// the request offers event 1 with method 1 (img).
	TrackEvent Tracking = iota
	// TrackImpTrackers: "imptrackers":[…], deprecated in 1.2 but valid,
	// and the only form of 1.0 and 1.1, when the request lists no
	// eventtrackers or none offers event 1 with method 1.
	TrackImpTrackers
)

// Miss says why a creative does not fit a request.
type Miss uint8

// The reasons of a mismatch; the first one met counts.
const (
	MissNone       Miss = iota
	MissNoClickURL      // the creative has no ClickURL
	MissTooMany         // a required asset past MaxAssets
	MissMalformed       // a required asset without a valid, unique id, or with more than one kind
	MissUnknown         // a required asset with none of title, img, data, video
	MissVideo           // a required video asset
	MissText            // a required title or data asset whose text the creative lacks
	MissTitleLen        // a required title longer than its len
	MissImageType       // a required img of a type dspd cannot fill
	MissImage           // a required main image the creative lacks
	MissIcon            // a required icon the creative lacks
	MissImageSize       // a required img whose size the creative's does not meet
	MissDataType        // a required data asset of a type dspd cannot fill
	MissDataLen         // a required data text longer than its len
	MissNothing         // no asset could be filled
)

var missNames = [...]string{
	MissNone: "none", MissNoClickURL: "no_click_url", MissTooMany: "too_many_assets",
	MissMalformed: "malformed_asset", MissUnknown: "unknown_asset", MissVideo: "video_asset",
	MissText: "no_text", MissTitleLen: "title_len", MissImageType: "image_type",
	MissImage: "no_image", MissIcon: "no_icon", MissImageSize: "image_size",
	MissDataType: "data_type", MissDataLen: "data_len", MissNothing: "no_asset",
}

// String names the reason, for a metric's label.
func (m Miss) String() string {
	if int(m) < len(missNames) {
		return missNames[m]
	}
	return "unknown"
}

// Plan is the answer Fit decided: which assets are filled with what, in
// the request's order, and how the impression is tracked. It is a value
// of fixed size: no allocation.
type Plan struct {
	slots    [MaxAssets]Slot
	n        int
	tracking Tracking
	wrapped  bool
	miss     Miss
	missID   int
}

// Slots returns the filled assets in the request's order. The slice
// aliases p.
func (p *Plan) Slots() []Slot { return p.slots[:p.n] }

// Tracking returns how the answer carries the impression tracker.
func (p *Plan) Tracking() Tracking { return p.tracking }

// Wrapped reports whether the answer is wrapped as {"native":{…}}, as the
// request was.
func (p *Plan) Wrapped() bool { return p.wrapped }

// Miss returns why the creative did not fit (MissNone when it did), and,
// for the reasons about one asset (MissMalformed to MissDataLen), the id
// of the required asset at fault.
func (p *Plan) Miss() (Miss, int) { return p.miss, p.missID }

// Fit decides whether cr fits req: whether it fills every required
// asset within its limits (the package documentation lists the rules).
// The Plan fills each asset cr can fill, required or not, in the
// request's order; when ok is false it says why (Plan.Miss).
// PreparedCreative.Fit decides the same without counting characters.
func Fit(req *Request, cr *Creative) (Plan, bool) {
	f := factsOf(cr)
	return fit(req, &f)
}

func fit(req *Request, f *facts) (p Plan, ok bool) {
	p.wrapped = req.Wrapped
	if !req.ImpImg {
		p.tracking = TrackImpTrackers
	}
	switch {
	case !f.click:
		p.miss = MissNoClickURL
		return p, false
	case req.DroppedRequired:
		p.miss = MissTooMany
		return p, false
	}
	for i := range req.assets[:req.n] {
		a := &req.assets[i]
		fl, miss := fill(a, f)
		if fl == FillNone {
			if a.Required {
				p.miss, p.missID = miss, a.ID
				return p, false
			}
			continue
		}
		p.slots[p.n] = Slot{ID: a.ID, Fill: fl}
		p.n++
	}
	if p.n == 0 {
		p.miss = MissNothing
		return p, false
	}
	return p, true
}

// fill decides what fills asset a, or why nothing does.
func fill(a *Asset, f *facts) (Fill, Miss) {
	if a.Malformed {
		return FillNone, MissMalformed
	}
	switch a.Kind {
	case KindTitle:
		return text(FillTitle, f.title, a.Len, MissTitleLen)
	case KindImage:
		return image(a, f)
	case KindData:
		switch a.Type {
		case DataSponsored:
			return text(FillSponsored, f.sponsored, a.Len, MissDataLen)
		case DataDesc:
			return text(FillBody, f.body, a.Len, MissDataLen)
		case DataCTAText:
			return text(FillCTA, f.cta, a.Len, MissDataLen)
		}
		return FillNone, MissDataType
	case KindVideo:
		return FillNone, MissVideo
	case KindMixed:
		return FillNone, MissMalformed
	}
	return FillNone, MissUnknown
}

// text fills a text of n characters (0: absent) where at most limit are
// allowed (0: any number): never cut.
func text(fl Fill, n, limit int, tooLong Miss) (Fill, Miss) {
	switch {
	case n == 0:
		return FillNone, MissText
	case limit > 0 && n > limit:
		return FillNone, tooLong
	}
	return fl, MissNone
}

func image(a *Asset, f *facts) (Fill, Miss) {
	fl, have, w, h, absent := FillImage, f.image, f.imageW, f.imageH, MissImage
	switch a.Type {
	case ImageMain:
	case ImageIcon, ImageLogo:
		fl, have, w, h, absent = FillIcon, f.icon, f.iconW, f.iconH, MissIcon
	default:
		return FillNone, MissImageType
	}
	switch {
	case !have:
		return FillNone, absent
	case !sizeOK(w, a.W, a.WMin) || !sizeOK(h, a.H, a.HMin):
		return FillNone, MissImageSize
	}
	return fl, MissNone
}

// sizeOK checks one dimension of an image: at least min when the request
// sets one, else exactly exact when it sets that, else any.
func sizeOK(have, exact, min int) bool {
	switch {
	case min > 0:
		return have >= min
	case exact > 0:
		return have == exact
	}
	return true
}
