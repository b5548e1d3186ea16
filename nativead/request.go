package nativead

// MaxAssets is the number of assets a Request keeps. The assets after the
// first MaxAssets are counted in Request.Dropped, not kept; one of them
// that is required makes every creative a mismatch (Fit), since the
// answer could not carry it.
const MaxAssets = 16

// Kind is what an asset asks for: one of title, img, data and video.
type Kind uint8

// The kinds of assets.
const (
	KindNone  Kind = iota // none of title, img, data, video (or only with values that are not objects)
	KindTitle             // title{len}
	KindImage             // img{type, w, h, wmin, hmin}
	KindData              // data{type, len}
	KindVideo             // video{…}: never filled
	KindMixed             // more than one of the four: malformed, never filled
)

// Image asset types (Native 1.2 section 7.5; 2, the logo of 1.0 and 1.1,
// was merged into 1).
const (
	ImageIcon = 1
	ImageLogo = 2
	ImageMain = 3
)

// Data asset types dspd fills (Native 1.2 section 7.4).
const (
	DataSponsored = 1
	DataDesc      = 2
	DataCTAText   = 12
)

// Asset is one asset of a native request. Integers the request leaves
// out, or gives as something other than an integer in [0, 2^31-1], are 0.
type Asset struct {
	ID       int
	Required bool // "required":1; any other value is absent, that is 0
	Kind     Kind
	Type     int // img.type or data.type
	Len      int // title.len or data.len: a maximum in characters; 0: none
	W, H     int // img.w, img.h: exact sizes, when the minimum is absent
	WMin     int // img.wmin
	HMin     int // img.hmin
	// Malformed: the asset has no valid id, or shares its id with another
	// asset of the request; it is never filled.
	Malformed bool

	idOK bool
}

// Request is a native request (Native 1.2 section 4.1), as far as dspd
// reads it. ParseRequest fills it; its strings alias the Request's own
// buffers and are valid until the next ParseRequest on it. A Request is
// meant to be reused (pooled): its buffers keep their capacity, so that
// parsing allocates nothing once they have grown to the largest request
// seen.
type Request struct {
	Ver            string // "ver", a string or a number's text; informational
	Context        int    // "context"; informational
	ContextSubtype int    // "contextsubtype"; informational
	PlcmtType      int    // "plcmttype"; informational
	PlcmtCnt       int    // "plcmtcnt"; informational (one ad is answered)

	// EventTrackers: the request lists eventtrackers (an array, even
	// empty); ImpImg and ImpJS: one of them offers event 1 (impression)
	// with method 1 (img), with method 2 (js).
	EventTrackers, ImpImg, ImpJS bool

	// Wrapped: the request came as {"native":{…}}, the root of Native 1.0;
	// the answer is then wrapped the same way.
	Wrapped bool

	// Dropped counts the assets past MaxAssets; DroppedRequired: one of
	// them is required.
	Dropped         int
	DroppedRequired bool

	assets [MaxAssets]Asset
	n      int
	doc    []byte // the request's JSON, unescaped, when it came as a string
	text   []byte // the strings kept (Ver), and numbers while they are read
}

// Assets returns the request's assets in the request's order (at most
// MaxAssets). The slice aliases r.
func (r *Request) Assets() []Asset { return r.assets[:r.n] }

// reset empties r, keeping its buffers.
func (r *Request) reset() {
	*r = Request{doc: r.doc[:0], text: r.text[:0]}
}
