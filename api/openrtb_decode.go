package api

import (
	"strconv"
	"strings"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// Limits of an OpenRTB request beyond those recbid shares.
const (
	maxImps    = 32 // impressions per request
	maxFormats = 16 // banner.format entries per impression
	maxSizes   = maxFormats + 1
)

// openrtbRequest is the part of an OpenRTB 2.6 BidRequest the engine uses.
// Strings alias the request's arena (openrtbState.arena).
type openrtbRequest struct {
	id                    string
	imps                  []openrtbImp
	site, bundle          string
	siteCat, appCat, cat  string // cat: both joined, as the engine's comma list
	bcat, badv            string // comma lists
	os                    string
	devType               int
	country, region, city string // country alpha-2; region as ISO 3166-2 (US-CA)
	uid, buyerUID         string
	tmax                  int
	test                  bool
	curDenied             string // cur[] is not empty and holds no USD: its first entry
}

type openrtbImp struct {
	id       string
	floor    bidder.Micros
	floorCur string
	secure   bool
	sizes    [maxSizes]openrtbSize // banner.w/h first, then banner.format[], without repeats
	nsizes   int
}

type openrtbSize struct{ w, h uint16 }

// engineRequest returns the bidder.Request the impressions share; decideImp
// sets the impression's own fields. OpenRTB has no request timestamp: the
// request time is the server clock at arrival.
func (r *openrtbRequest) engineRequest(arrived time.Time) bidder.Request {
	uid := r.uid
	if uid == "" {
		uid = r.buyerUID
	}
	return bidder.Request{
		ID:      r.id,
		Cur:     r.curDenied,
		Site:    r.site,
		Bundle:  r.bundle,
		Cat:     r.cat,
		BCat:    r.bcat,
		BAdv:    r.badv,
		OS:      r.os,
		DevType: r.devType,
		Country: r.country,
		Region:  r.region,
		City:    r.city,
		UID:     uid,
		TimeMs:  arrived.UnixMilli(),
		TMax:    time.Duration(r.tmax) * time.Millisecond,
		Test:    r.test,
		Arrived: arrived,
	}
}

// decodeBidRequest walks body, a BidRequest, into st.req. jsonOK is false
// when body is not one JSON object (bad_body); otherwise ferr is the first
// field at fault, in the order of the body (a missing field is found when
// the object that should hold it ends), or nil.
//
// The walk is by hand, from a pooled json-iterator Iterator: no map, no
// reflection. Unknown keys are skipped (with their syntax checked), null is
// the same as an absent key, an empty string the same as an absent string,
// and when a key repeats, its last value counts.
func decodeBidRequest(body []byte, st *openrtbState) (ferr *fieldError, jsonOK bool) {
	st.req = openrtbRequest{imps: st.imps[:0]}
	d := bidRequestDecoder{it: jsoncodec.BorrowIterator(body), arena: st.arena[:0], r: &st.req}
	if d.it.WhatIsNext() == jsoncodec.ObjectValue {
		d.request()
		jsonOK = d.it.Err() == nil && d.it.End()
	}
	jsoncodec.ReturnIterator(d.it)
	st.arena = d.arena[:0] // keep it if it grew
	return d.err, jsonOK
}

type bidRequestDecoder struct {
	it    jsoncodec.Iterator
	arena []byte // decoded strings; the request's strings alias it
	r     *openrtbRequest
	err   *fieldError // the first field at fault
}

// fieldName is a field's JSON path ("imp[0].banner.format[1].w"), formatted
// only when an error names it.
type fieldName struct {
	base      string
	i, j      int // 1 + the index after base, after mid; 0 for none
	mid, leaf string
}

func (f fieldName) String() string {
	s := f.base
	if f.i > 0 {
		s += "[" + strconv.Itoa(f.i-1) + "]"
	}
	s += f.mid
	if f.j > 0 {
		s += "[" + strconv.Itoa(f.j-1) + "]"
	}
	return s + f.leaf
}

func topField(name string) fieldName { return fieldName{base: name} }

func impField(i int, leaf string) fieldName { return fieldName{base: "imp", i: i + 1, leaf: leaf} }

func formatField(i, j int, leaf string) fieldName {
	return fieldName{base: "imp", i: i + 1, mid: ".banner.format", j: j + 1, leaf: leaf}
}

func itemField(list string, k int) fieldName { return fieldName{base: list, i: k + 1} }

// fail records a field error unless an earlier one was recorded.
func (d *bidRequestDecoder) fail(code string, f fieldName, msg string) {
	if d.err == nil {
		name := f.String()
		d.err = &fieldError{code: code, field: name, message: name + " " + msg}
	}
}

func (d *bidRequestDecoder) invalid(f fieldName, msg string) { d.fail(errInvalidField, f, msg) }

type presence uint8

const (
	absent    presence = iota // null: skipped
	present                   // of the wanted kind, not consumed
	wrongKind                 // skipped
)

// value looks at the next value without consuming it when it is of kind
// want; null (absent) and values of another kind are skipped.
func (d *bidRequestDecoder) value(want jsoncodec.ValueType) presence {
	switch d.it.WhatIsNext() {
	case want:
		return present
	case jsoncodec.NilValue:
		d.it.Skip()
		return absent
	}
	d.it.Skip()
	return wrongKind
}

// object checks that the next value is an object (null: absent), recording
// an error for another kind; the caller reads the object's keys when true.
func (d *bidRequestDecoder) object(f fieldName) bool {
	switch d.value(jsoncodec.ObjectValue) {
	case present:
		return true
	case wrongKind:
		d.invalid(f, "must be an object")
	}
	return false
}

// array is object for arrays.
func (d *bidRequestDecoder) array(f fieldName) bool {
	switch d.value(jsoncodec.ArrayValue) {
	case present:
		return true
	case wrongKind:
		d.invalid(f, "must be an array")
	}
	return false
}

// str reads a string value into the arena; the caller has checked its kind.
func (d *bidRequestDecoder) str() []byte {
	start := len(d.arena)
	d.arena = d.it.AppendString(d.arena)
	return d.arena[start:]
}

// text reads a string of at most maxLen bytes: "" when null, empty or at
// fault.
func (d *bidRequestDecoder) text(f fieldName, maxLen int) []byte {
	switch d.value(jsoncodec.StringValue) {
	case absent:
		return nil
	case wrongKind:
		d.invalid(f, "must be a string")
		return nil
	}
	v := d.str()
	if len(v) > maxLen {
		d.invalid(f, "must be at most "+strconv.Itoa(maxLen)+" bytes")
		return nil
	}
	return v
}

// skipString checks that a value the engine does not use is a string.
func (d *bidRequestDecoder) skipString(f fieldName) {
	switch d.value(jsoncodec.StringValue) {
	case present:
		d.it.Skip()
	case wrongKind:
		d.invalid(f, "must be a string")
	}
}

// id reads an id: 1–64 printable ASCII characters.
func (d *bidRequestDecoder) id(f fieldName) string {
	switch d.value(jsoncodec.StringValue) {
	case absent:
		return ""
	case wrongKind:
		d.invalid(f, "must be a string")
		return ""
	}
	v := d.str()
	if len(v) > maxIDLen || !bidder.IsPrintableASCII(v) {
		d.invalid(f, "must be 1-64 printable ASCII characters")
		return ""
	}
	return str(v)
}

// number reads a number's literal text; it is valid until the next read.
func (d *bidRequestDecoder) number() []byte {
	start := len(d.arena)
	d.arena = d.it.AppendNumber(d.arena)
	lit := d.arena[start:]
	d.arena = d.arena[:start] // numbers are not kept
	return lit
}

// integer reads a JSON integer in [lo, hi]; ok is false when it is null or
// at fault.
func (d *bidRequestDecoder) integer(f fieldName, lo, hi int64, msg string) (int64, bool) {
	switch d.value(jsoncodec.NumberValue) {
	case absent:
		return 0, false
	case wrongKind:
		d.invalid(f, msg)
		return 0, false
	}
	n, ok := parseInt(d.number(), lo, hi)
	if !ok {
		d.invalid(f, msg)
	}
	return n, ok
}

const (
	msgSize = "must be an integer 1-10000"
	msgFlag = "must be 0 or 1"
)

// request reads the top-level object.
func (d *bidRequestDecoder) request() {
	r := d.r
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "id":
			r.id = d.id(topField("id"))
		case "imp":
			d.imps()
		case "site":
			d.site()
		case "app":
			d.app()
		case "device":
			d.device()
		case "user":
			d.user()
		case "tmax":
			if n, ok := d.integer(topField("tmax"), 1, 10000, "must be an integer 1-10000 (milliseconds)"); ok {
				r.tmax = int(n)
			}
		case "test":
			if n, ok := d.integer(topField("test"), 0, 1, msgFlag); ok {
				r.test = n == 1
			}
		case "bcat":
			r.bcat = d.list("bcat")
		case "badv":
			r.badv = d.list("badv")
		case "cur":
			d.cur()
		default: // ext, regs, source, at, wseat…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	if r.id == "" {
		d.fail(errMissingField, topField("id"), "is required")
	}
	if len(r.imps) == 0 {
		d.fail(errMissingField, topField("imp"), "is required (at least one impression)")
	}
	switch {
	case r.appCat == "":
		r.cat = r.siteCat
	case r.siteCat == "":
		r.cat = r.appCat
	default:
		start := len(d.arena)
		d.arena = append(d.arena, r.siteCat...)
		d.arena = append(d.arena, ',')
		d.arena = append(d.arena, r.appCat...)
		r.cat = str(d.arena[start:])
	}
}

func (d *bidRequestDecoder) imps() {
	r := d.r
	if !d.array(topField("imp")) {
		return
	}
	r.imps = r.imps[:0]
	for i := 0; d.it.ReadArray() && d.it.Err() == nil; i++ {
		if i >= maxImps {
			d.invalid(topField("imp"), "must hold at most "+strconv.Itoa(maxImps)+" impressions")
			d.it.Skip()
			continue
		}
		if d.value(jsoncodec.ObjectValue) != present {
			d.invalid(impField(i, ""), "must be an object")
			continue
		}
		r.imps = append(r.imps, openrtbImp{})
		d.imp(i)
	}
}

// imp reads impression i, the last of d.r.imps.
func (d *bidRequestDecoder) imp(i int) {
	imps := d.r.imps
	imp := &imps[len(imps)-1]
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "id":
			imp.id = d.id(impField(i, ".id"))
		case "banner":
			d.banner(i, imp)
		case "bidfloor":
			d.bidfloor(i, imp)
		case "bidfloorcur":
			imp.floorCur = d.currency(impField(i, ".bidfloorcur"))
		case "secure":
			if n, ok := d.integer(impField(i, ".secure"), 0, 1, msgFlag); ok {
				imp.secure = n == 1
			}
		case "tagid":
			d.text(impField(i, ".tagid"), maxStringLen)
		default: // video, native, audio, pmp, instl, ext…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	if imp.id == "" {
		d.fail(errMissingField, impField(i, ".id"), "is required")
		return
	}
	for k := range imps[:len(imps)-1] {
		if imps[k].id == imp.id {
			d.invalid(impField(i, ".id"), "must be unique in the request")
			return
		}
	}
}

// banner reads an impression's sizes: banner.w/h first, then format[],
// repeats dropped.
func (d *bidRequestDecoder) banner(i int, imp *openrtbImp) {
	if !d.object(impField(i, ".banner")) {
		return
	}
	var w, h int64 // 0: absent
	nf := 0        // formats, read into imp.sizes[1:]
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "w":
			w, _ = d.integer(impField(i, ".banner.w"), 1, 10000, msgSize)
		case "h":
			h, _ = d.integer(impField(i, ".banner.h"), 1, 10000, msgSize)
		case "format":
			nf = d.formats(i, imp.sizes[1:])
		default: // pos, btype, battr, mimes, api, ext…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	switch {
	case w > 0 && h == 0:
		d.fail(errMissingField, impField(i, ".banner.h"), "is required with banner.w")
	case h > 0 && w == 0:
		d.fail(errMissingField, impField(i, ".banner.w"), "is required with banner.h")
	}
	n := 0
	if w > 0 && h > 0 {
		imp.sizes[0] = openrtbSize{uint16(w), uint16(h)}
		n = 1 + nf
	} else {
		n = copy(imp.sizes[:], imp.sizes[1:1+nf])
	}
	// Drop repeated sizes (w/h is often format[0] too): trying one twice
	// could never change the outcome.
	kept := 0
outer:
	for _, sz := range imp.sizes[:n] {
		for _, k := range imp.sizes[:kept] {
			if k == sz {
				continue outer
			}
		}
		imp.sizes[kept] = sz
		kept++
	}
	imp.nsizes = kept
}

// formats reads banner.format[] into dst and returns how many sizes it
// holds. An entry without w and h (a flexible size: wratio/hratio, wmin) is
// skipped; one with only one of them is an error.
func (d *bidRequestDecoder) formats(i int, dst []openrtbSize) int {
	if !d.array(impField(i, ".banner.format")) {
		return 0
	}
	n := 0
	for j := 0; d.it.ReadArray() && d.it.Err() == nil; j++ {
		if d.value(jsoncodec.ObjectValue) != present {
			d.invalid(formatField(i, j, ""), "must be an object")
			continue
		}
		var w, h int64
		for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
			switch key {
			case "w":
				w, _ = d.integer(formatField(i, j, ".w"), 1, 10000, msgSize)
			case "h":
				h, _ = d.integer(formatField(i, j, ".h"), 1, 10000, msgSize)
			default:
				d.it.Skip()
			}
			if d.it.Err() != nil {
				return n
			}
		}
		switch {
		case w == 0 && h == 0:
		case w == 0:
			d.fail(errMissingField, formatField(i, j, ".w"), "is required with h")
		case h == 0:
			d.fail(errMissingField, formatField(i, j, ".h"), "is required with w")
		case n == len(dst):
			d.invalid(impField(i, ".banner.format"), "must hold at most "+strconv.Itoa(maxFormats)+" sizes")
		default:
			dst[n] = openrtbSize{uint16(w), uint16(h)}
			n++
		}
	}
	return n
}

// bidfloor reads the floor as micros from the number's literal text: no
// binary floating point on the way.
func (d *bidRequestDecoder) bidfloor(i int, imp *openrtbImp) {
	f := impField(i, ".bidfloor")
	const msg = "must be a number >= 0 with at most 6 fractional digits and no exponent"
	switch d.value(jsoncodec.NumberValue) {
	case absent:
		return
	case wrongKind:
		d.invalid(f, msg)
		return
	}
	m, err := bidder.ParseMicros(d.number()) // refuses a sign, an exponent, a 7th decimal
	if err != nil {
		d.invalid(f, msg)
		return
	}
	imp.floor = m
}

// currency reads an ISO 4217 code: 3 letters, any case.
func (d *bidRequestDecoder) currency(f fieldName) string {
	v := d.text(f, maxStringLen)
	if len(v) == 0 {
		return ""
	}
	if len(v) != 3 || !bidder.IsLetters(v) {
		d.invalid(f, "must be a 3-letter currency code")
		return ""
	}
	return str(v)
}

// cur reads the bid currencies the exchange allows.
func (d *bidRequestDecoder) cur() {
	r := d.r
	r.curDenied = ""
	if !d.array(topField("cur")) {
		return
	}
	first, usd := "", false
	for k := 0; d.it.ReadArray() && d.it.Err() == nil; k++ {
		c := d.currency(itemField("cur", k))
		switch {
		case c == "":
		case strings.EqualFold(c, "USD"):
			usd = true
		case first == "":
			first = c
		}
	}
	if !usd {
		r.curDenied = first // "" when the list is empty: any currency
	}
}

// list reads an array of strings (categories, domains) as the engine's
// comma list: items of at most 256 bytes without a comma; empty items
// (blanks only) are dropped.
func (d *bidRequestDecoder) list(name string) string {
	if !d.array(topField(name)) {
		return ""
	}
	start := len(d.arena)
	for k := 0; d.it.ReadArray() && d.it.Err() == nil; k++ {
		mark := len(d.arena)
		if mark > start {
			d.arena = append(d.arena, ',')
		}
		item := d.text(itemField(name, k), maxStringLen)
		switch {
		case strings.TrimSpace(str(item)) == "":
			d.arena = d.arena[:mark]
		case strings.IndexByte(str(item), ',') >= 0:
			d.invalid(itemField(name, k), "must not hold a comma")
			d.arena = d.arena[:mark]
		}
	}
	return str(d.arena[start:])
}

func (d *bidRequestDecoder) site() {
	r := d.r
	if !d.object(topField("site")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "domain":
			v := d.text(topField("site.domain"), maxStringLen)
			if !bidder.IsToken(v) {
				d.invalid(topField("site.domain"), "must be a domain name")
				v = nil
			}
			r.site = str(v)
		case "page":
			d.skipString(topField("site.page"))
		case "cat":
			r.siteCat = d.list("site.cat")
		default:
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

func (d *bidRequestDecoder) app() {
	r := d.r
	if !d.object(topField("app")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "bundle":
			r.bundle = str(d.text(topField("app.bundle"), maxStringLen))
		case "cat":
			r.appCat = d.list("app.cat")
		default:
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

func (d *bidRequestDecoder) device() {
	r := d.r
	if !d.object(topField("device")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "os":
			// OpenRTB's operating systems are free text ("Mac OS X"): a
			// value that is not a token could match no campaign, so it
			// counts as no os rather than an error.
			if v := d.text(topField("device.os"), maxStringLen); bidder.IsToken(v) {
				r.os = str(v)
			}
		case "devicetype":
			d.deviceType()
		case "ua":
			d.skipString(topField("device.ua"))
		case "ip":
			d.skipString(topField("device.ip"))
		case "geo":
			d.geo()
		default:
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// deviceType reads device.devicetype: an integer; the OpenRTB 2.x types
// 1–7 are kept, other integers (AdCOM's 8, out-of-home, and anything later)
// count as no device type.
func (d *bidRequestDecoder) deviceType() {
	f := topField("device.devicetype")
	switch d.value(jsoncodec.NumberValue) {
	case absent:
		return
	case wrongKind:
		d.invalid(f, "must be an integer")
		return
	}
	lit := d.number()
	if len(lit) == 0 {
		return // a syntax error, which the iterator holds
	}
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	for _, c := range lit {
		if c < '0' || c > '9' {
			d.invalid(f, "must be an integer")
			return
		}
	}
	d.r.devType = 0
	if n, ok := parseInt(lit, 1, 7); ok && !neg {
		d.r.devType = int(n)
	}
}

// geo reads device.geo: the country from alpha-3, the region prefixed with
// it (see openrtbRegion), the city.
func (d *bidRequestDecoder) geo() {
	r := d.r
	if !d.object(topField("device.geo")) {
		return
	}
	var region []byte
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "country":
			r.country = countryAlpha2(d.text(topField("device.geo.country"), maxStringLen))
		case "region":
			region = d.text(topField("device.geo.region"), maxStringLen)
		case "city":
			r.city = str(d.text(topField("device.geo.city"), maxStringLen))
		default: // lat, lon, metro, zip, type, utcoffset…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	r.region = d.openrtbRegion(region, r.country)
}

// openrtbRegion builds the engine's ISO 3166-2 region: OpenRTB writes the
// subdivision without its country ("CA"), which is prefixed with the
// country ("US-CA"); a value that already has the prefix is taken as it is.
// Anything else (a name, or no country to prefix) counts as no region.
func (d *bidRequestDecoder) openrtbRegion(v []byte, country string) string {
	switch {
	case len(v) == 0:
		return ""
	case bidder.IsRegionCode(v):
		return str(v)
	case len(v) > 3 || country == "":
		return ""
	}
	for _, c := range v {
		if !bidder.IsAlnum(c) {
			return ""
		}
	}
	start := len(d.arena)
	d.arena = append(d.arena, country...)
	d.arena = append(d.arena, '-')
	d.arena = append(d.arena, v...)
	return str(d.arena[start:])
}

func (d *bidRequestDecoder) user() {
	r := d.r
	if !d.object(topField("user")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch key {
		case "id":
			r.uid = str(d.text(topField("user.id"), maxUIDLen))
		case "buyeruid":
			r.buyerUID = str(d.text(topField("user.buyeruid"), maxUIDLen))
		default: // yob, gender, geo, data, ext…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}
