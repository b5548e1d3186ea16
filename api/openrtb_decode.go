package api

import (
	"bytes"
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

	signals openrtbSignals // the privacy signals (openrtb_regs.go)

	invalid fieldSet   // the used fields whose bad values were treated as absent
	example badExample // the first of them, for the log
}

type openrtbImp struct {
	id       string
	floor    bidder.Micros // in floorCur; rounded up to whole micros
	floorCur string
	secure   bool
	private  bool                  // pmp.private_auction 1: only deal bids
	banner   bool                  // it has a banner object
	sizes    [maxSizes]openrtbSize // banner.w/h first, then banner.format[], without repeats
	nsizes   int

	video     videoImp // imp.video (openrtb_media.go)
	nativeRaw []byte   // imp.native.request's raw value, in the arena; nil: none
	deals     [maxImpDeals]openrtbDeal
	ndeals    int
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
// required field at fault, in the order of the body (a missing field is
// found when the object that should hold it ends), or nil.
//
// The walk follows the field policy of docs/openrtb.md: a required field
// with a bad value is an error; a used field with a bad value is treated as
// absent and noted in st.req.invalid (with the first value in
// st.req.example); an ignored field is skipped. Unknown keys are skipped
// (with their syntax checked), null is the same as an absent key, an empty
// string the same as an absent string, and when a key repeats, its last
// value counts.
//
// The walk is by hand, with a jsoncodec.Scanner, which reads the body in
// place (keys included) and accepts what json-iterator's walk accepted: no
// map, no reflection, no allocation.
func decodeBidRequest(body []byte, st *openrtbState, seat string) (ferr *fieldError, jsonOK bool) {
	st.req = openrtbRequest{imps: st.imps[:0]}
	st.req.signals.reset()
	// Numbers of any magnitude are valid JSON: 1e400 in a field dspd
	// ignores is no reason for a 400, and as a used field it is read as
	// the field's policy says (a floor above any price, say).
	d := bidRequestDecoder{it: jsoncodec.NewScannerAnyMagnitude(body), arena: st.arena[:0], r: &st.req, seat: seat}
	if d.it.WhatIsNext() == jsoncodec.ObjectValue {
		d.request()
		jsonOK = d.it.Err() == nil && d.it.End()
	}
	st.arena = d.arena[:0] // keep it if it grew
	return d.err, jsonOK
}

type bidRequestDecoder struct {
	it    jsoncodec.Scanner // keys it returns are valid until its next read
	arena []byte            // decoded strings; the request's strings alias it
	r     *openrtbRequest
	err   *fieldError // the first required field at fault
	raw   []byte      // the text of the last value of the wrong kind, while no bad field is noted yet
	seat  string      // dspd's seat, looked for in a deal's wseat
}

// fieldName is a field's JSON path ("imp[0].banner.format[1].w"), formatted
// only when an error or a log line names it.
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

// fail records a required field's error unless an earlier one was
// recorded.
func (d *bidRequestDecoder) fail(code string, f fieldName, msg string) {
	if d.err == nil {
		name := f.String()
		d.err = &fieldError{code: code, field: name, message: name + " " + msg}
	}
}

func (d *bidRequestDecoder) invalid(f fieldName, msg string) { d.fail(CodeInvalidField, f, msg) }

// drop notes that a used field had a bad value v, which the caller treats
// as absent; the request's first bad value is kept for the log.
func (d *bidRequestDecoder) drop(f usedField, name fieldName, v []byte) {
	r := d.r
	if r.invalid == 0 {
		r.example.field = name
		r.example.n = copy(r.example.value[:], v)
		r.example.cut = len(v) > maxExample
	}
	r.invalid |= 1 << f
}

type presence uint8

const (
	absent    presence = iota // null: skipped
	present                   // of the wanted kind, not consumed
	wrongKind                 // skipped (its text in d.raw while no bad field is noted); for usedInt, also out of range
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
	d.skipWrong()
	return wrongKind
}

// skipWrong skips a value of the wrong kind, keeping its text in d.raw
// while the request has no bad field noted (drop quotes the first).
func (d *bidRequestDecoder) skipWrong() {
	d.raw = nil
	if d.r.invalid != 0 {
		d.it.Skip()
		return
	}
	start := len(d.arena)
	d.arena = d.it.AppendRaw(d.arena)
	d.raw = d.arena[start:]
	d.arena = d.arena[:start] // not kept: drop copies it at once
}

// object checks that a required object is one (null: absent), recording an
// error for another kind; the caller reads the object's keys when true.
func (d *bidRequestDecoder) object(f fieldName) bool {
	switch d.value(jsoncodec.ObjectValue) {
	case present:
		return true
	case wrongKind:
		d.invalid(f, "must be an object")
	}
	return false
}

// usedObject is object for a used field: another kind is dropped.
func (d *bidRequestDecoder) usedObject(u usedField, f fieldName) bool {
	switch d.value(jsoncodec.ObjectValue) {
	case present:
		return true
	case wrongKind:
		d.drop(u, f, d.raw)
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

// text reads a required string of at most maxLen bytes: nil when null,
// empty or at fault.
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

// usedText reads a used string of at most maxLen bytes: nil when null or
// empty; a value of another kind or longer is dropped (nil).
func (d *bidRequestDecoder) usedText(u usedField, f fieldName, maxLen int) []byte {
	switch d.value(jsoncodec.StringValue) {
	case absent:
		return nil
	case wrongKind:
		d.drop(u, f, d.raw)
		return nil
	}
	v := d.str()
	if len(v) > maxLen {
		d.drop(u, f, v)
		return nil
	}
	return v
}

// usedToken is usedText for a value of letters, digits, '.', '_' and '-'
// (a domain, an operating system): anything else is dropped.
func (d *bidRequestDecoder) usedToken(u usedField, f fieldName) string {
	v := d.usedText(u, f, maxStringLen)
	if !bidder.IsToken(v) {
		d.drop(u, f, v)
		return ""
	}
	return str(v)
}

// id reads a required id: 1–64 printable ASCII characters.
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

// integer reads a required JSON integer in [lo, hi]; ok is false when it
// is null or at fault.
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

// usedInt reads a used JSON integer in [lo, hi]: present with its value,
// absent (null), or wrongKind when it is dropped (another kind, or out of
// range), n then 0.
func (d *bidRequestDecoder) usedInt(u usedField, f fieldName, lo, hi int64) (n int64, p presence) {
	switch p = d.value(jsoncodec.NumberValue); p {
	case absent:
		return 0, absent
	case wrongKind:
		d.drop(u, f, d.raw)
		return 0, wrongKind
	}
	lit := d.number()
	n, ok := parseInt(lit, lo, hi)
	if !ok {
		d.drop(u, f, lit)
		return 0, wrongKind
	}
	return n, present
}

const msgSize = "must be an integer 1-10000"

// request reads the top-level object.
func (d *bidRequestDecoder) request() {
	r := d.r
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
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
		case "tmax": // out of 1–10000 ms: the default
			n, _ := d.usedInt(fieldTMax, topField("tmax"), 1, 10000)
			r.tmax = int(n)
		case "test": // anything but 1 is not a test
			n, _ := d.usedInt(fieldTest, topField("test"), 0, 1)
			r.test = n == 1
		case "bcat":
			r.bcat = d.list(fieldBCat, "bcat")
		case "badv":
			r.badv = d.list(fieldBAdv, "badv")
		case "cur":
			d.cur()
		case "regs":
			d.regs()
		default: // ext, source, at, wseat…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	if r.id == "" {
		d.fail(CodeMissingField, topField("id"), "is required")
	}
	if len(r.imps) == 0 {
		d.fail(CodeMissingField, topField("imp"), "is required (at least one impression)")
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
		if i >= maxImps { // not bid on
			d.drop(fieldImps, impField(i, ""), nil)
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
		switch string(key) {
		case "id":
			imp.id = d.id(impField(i, ".id"))
		case "banner":
			d.banner(i, imp)
		case "bidfloor":
			d.bidfloor(i, imp)
		case "bidfloorcur":
			imp.floorCur = d.currency(impField(i, ".bidfloorcur"))
		case "secure":
			// Fail safe: a value that is not 0 or 1 serves secure creatives
			// only, which every page can show.
			n, p := d.usedInt(fieldSecure, impField(i, ".secure"), 0, 1)
			imp.secure = n == 1 || p == wrongKind
		case "pmp":
			d.pmp(i, imp)
		case "video":
			d.video(i, imp)
		case "native":
			d.native(i, imp)
		default: // audio, tagid, instl, ext…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	if imp.id == "" {
		d.fail(CodeMissingField, impField(i, ".id"), "is required")
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
	imp.banner = true
	var w, h int64 // 0: absent
	nf := 0        // formats, read into imp.sizes[1:]
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
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
		d.fail(CodeMissingField, impField(i, ".banner.h"), "is required with banner.w")
	case h > 0 && w == 0:
		d.fail(CodeMissingField, impField(i, ".banner.w"), "is required with banner.h")
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
// skipped; one with only one of them is an error. Entries beyond dst's room
// are not tried.
func (d *bidRequestDecoder) formats(i int, dst []openrtbSize) int {
	if !d.array(impField(i, ".banner.format")) {
		return 0
	}
	n := 0
	for j := 0; d.it.ReadArray() && d.it.Err() == nil; j++ {
		if n == len(dst) {
			d.drop(fieldFormats, formatField(i, j, ""), nil)
			d.it.Skip()
			continue
		}
		if d.value(jsoncodec.ObjectValue) != present {
			d.invalid(formatField(i, j, ""), "must be an object")
			continue
		}
		var w, h int64
		for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
			switch string(key) {
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
			d.fail(CodeMissingField, formatField(i, j, ".w"), "is required with h")
		case h == 0:
			d.fail(CodeMissingField, formatField(i, j, ".h"), "is required with w")
		default:
			dst[n] = openrtbSize{uint16(w), uint16(h)}
			n++
		}
	}
	return n
}

// bidfloor reads the floor exactly from the number's literal text, rounded
// up to whole micros (so that a bid at or above it is never below the floor
// written), without binary floating point on the way; a floor above any
// price saturates to one no bid clears.
func (d *bidRequestDecoder) bidfloor(i int, imp *openrtbImp) {
	f := impField(i, ".bidfloor")
	const msg = "must be a number >= 0"
	switch d.value(jsoncodec.NumberValue) {
	case absent:
		imp.floor = 0
		return
	case wrongKind:
		d.invalid(f, msg)
		return
	}
	m, ok := bidder.CeilMicros(d.number())
	if !ok {
		d.invalid(f, msg)
		return
	}
	imp.floor = m
}

// pmp reads the private marketplace: its deals (openrtb_media.go) and
// whether the auction is private (private_auction 1: only deal bids). A
// bad private_auction is treated as absent (0).
func (d *bidRequestDecoder) pmp(i int, imp *openrtbImp) {
	if !d.usedObject(fieldPMP, impField(i, ".pmp")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "private_auction":
			n, _ := d.usedInt(fieldPMP, impField(i, ".pmp.private_auction"), 0, 1)
			imp.private = n == 1
		case "deals":
			d.deals(i, imp, d.seat)
		default: // ext
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// currency reads a required ISO 4217 code: 3 letters, any case.
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

// list reads a used array of strings (categories, domains) as the engine's
// comma list. What can be read is kept, so that a block list still blocks
// what it names: an item that is a number is read as its text, a string
// where the array belongs as a comma list (both noted as bad); an item of
// another kind, or over 256 bytes (longer than any campaign's category or
// domain, so it could match none), is dropped. Blank items are skipped; an
// item holding commas is several items.
func (d *bidRequestDecoder) list(u usedField, name string) string {
	f := topField(name)
	switch d.it.WhatIsNext() {
	case jsoncodec.ArrayValue:
	case jsoncodec.StringValue:
		v := d.str()
		d.drop(u, f, v)
		return str(v)
	case jsoncodec.NilValue:
		d.it.Skip()
		return ""
	default:
		d.skipWrong()
		d.drop(u, f, d.raw)
		return ""
	}
	start := len(d.arena)
	for k := 0; d.it.ReadArray() && d.it.Err() == nil; k++ {
		mark := len(d.arena)
		if mark > start {
			d.arena = append(d.arena, ',')
		}
		item := mark
		if mark > start {
			item++
		}
		keep := true
		switch d.it.WhatIsNext() {
		case jsoncodec.StringValue:
			if v := d.str(); len(v) > maxStringLen {
				d.drop(u, itemField(name, k), v)
				keep = false
			}
		case jsoncodec.NumberValue:
			d.arena = d.it.AppendNumber(d.arena)
			d.drop(u, itemField(name, k), d.arena[item:])
		case jsoncodec.NilValue:
			d.it.Skip()
			keep = false
		default:
			d.skipWrong()
			d.drop(u, itemField(name, k), d.raw)
			keep = false
		}
		if !keep || strings.TrimSpace(str(d.arena[item:])) == "" {
			d.arena = d.arena[:mark]
		}
	}
	return str(d.arena[start:])
}

func (d *bidRequestDecoder) site() {
	r := d.r
	if !d.usedObject(fieldSite, topField("site")) {
		return
	}
	r.site = ""
	var page []byte
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "domain":
			r.site = d.usedToken(fieldSiteDomain, topField("site.domain"))
		case "page":
			page = d.usedText(fieldSitePage, topField("site.page"), MaxBodyBytes)
		case "cat":
			r.siteCat = d.list(fieldSiteCat, "site.cat")
		default:
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	if r.site == "" { // OpenRTB makes the domain optional: the page's host stands in
		r.site = str(pageHost(page))
	}
}

// pageHost returns the host of an http or https URL, without its port
// ("https://News.example:8443/a?b" → "News.example"), or nil when the URL
// has none that could be a domain name.
func pageHost(u []byte) []byte {
	for _, scheme := range [...]string{"https://", "http://"} {
		if len(u) < len(scheme) || !strings.EqualFold(str(u[:len(scheme)]), scheme) {
			continue
		}
		host := u[len(scheme):]
		if i := bytes.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		if i := bytes.LastIndexByte(host, ':'); i >= 0 {
			host = host[:i]
		}
		if len(host) > maxStringLen || !bidder.IsToken(host) { // userinfo, an IPv6 literal, spaces…
			return nil
		}
		return host
	}
	return nil
}

func (d *bidRequestDecoder) app() {
	r := d.r
	if !d.usedObject(fieldApp, topField("app")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "bundle":
			r.bundle = str(d.usedText(fieldAppBundle, topField("app.bundle"), maxStringLen))
		case "cat":
			r.appCat = d.list(fieldAppCat, "app.cat")
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
	if !d.usedObject(fieldDevice, topField("device")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "os":
			// OpenRTB's operating systems are free text ("Mac OS X"): a
			// value that is not a token could match no campaign.
			r.os = d.usedToken(fieldDeviceOS, topField("device.os"))
		case "devicetype":
			d.deviceType()
		case "geo":
			d.geo()
		case "lmt":
			r.signals.lmt = d.flag(fieldLMT, "device.lmt") == 1
		case "dnt":
			r.signals.dnt = d.flag(fieldDNT, "device.dnt") == 1
		default: // ua, ip, make, ext…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// deviceType reads device.devicetype: an integer; the OpenRTB 2.x types
// 1–7 are kept, other integers (AdCOM's 8, out-of-home, and anything later)
// count as no device type without being bad; anything but an integer is.
func (d *bidRequestDecoder) deviceType() {
	f := topField("device.devicetype")
	d.r.devType = 0
	switch d.value(jsoncodec.NumberValue) {
	case absent:
		return
	case wrongKind:
		d.drop(fieldDeviceType, f, d.raw)
		return
	}
	lit := d.number()
	if !isInteger(lit) {
		d.drop(fieldDeviceType, f, lit)
		return
	}
	if n, ok := parseInt(lit, 1, 7); ok {
		d.r.devType = int(n)
	}
}

// isInteger reports digits, with a '-' before them or not.
func isInteger(lit []byte) bool {
	if len(lit) > 0 && lit[0] == '-' {
		lit = lit[1:]
	}
	for _, c := range lit {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(lit) > 0
}

// geo reads device.geo: the country from alpha-3, the region prefixed with
// it (see openrtbRegion), the city.
func (d *bidRequestDecoder) geo() {
	r := d.r
	if !d.usedObject(fieldGeo, topField("device.geo")) {
		return
	}
	var region []byte
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "country":
			f := topField("device.geo.country")
			v := d.usedText(fieldGeoCountry, f, maxStringLen)
			if r.country = countryAlpha2(v); r.country == "" && len(v) > 0 {
				d.drop(fieldGeoCountry, f, v) // not an assigned code
			}
		case "region":
			region = d.usedText(fieldGeoRegion, topField("device.geo.region"), maxStringLen)
		case "city":
			r.city = str(d.usedText(fieldGeoCity, topField("device.geo.city"), maxStringLen))
		default: // lat, lon, metro, zip, type, utcoffset…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
	var wellFormed bool
	if r.region, wellFormed = d.openrtbRegion(region, r.country); !wellFormed {
		d.drop(fieldGeoRegion, topField("device.geo.region"), region)
	}
}

// openrtbRegion builds the engine's ISO 3166-2 region: OpenRTB writes the
// subdivision without its country ("CA"), which is prefixed with the
// country ("US-CA"); a value that already has the prefix is taken as it is.
// Without a country to prefix, a subdivision means no region; anything
// else (a name) is not well formed.
func (d *bidRequestDecoder) openrtbRegion(v []byte, country string) (region string, wellFormed bool) {
	switch {
	case len(v) == 0:
		return "", true
	case bidder.IsRegionCode(v):
		return str(v), true
	case len(v) > 3:
		return "", false
	}
	for _, c := range v {
		if !bidder.IsAlnum(c) {
			return "", false
		}
	}
	if country == "" {
		return "", true
	}
	start := len(d.arena)
	d.arena = append(d.arena, country...)
	d.arena = append(d.arena, '-')
	d.arena = append(d.arena, v...)
	return str(d.arena[start:]), true
}

func (d *bidRequestDecoder) user() {
	r := d.r
	if !d.usedObject(fieldUser, topField("user")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "id":
			r.uid = str(d.usedText(fieldUserID, topField("user.id"), maxUIDLen))
		case "buyeruid":
			r.buyerUID = str(d.usedText(fieldBuyerUID, topField("user.buyeruid"), maxUIDLen))
		case "consent":
			r.signals.tc, _ = d.signalText(fieldConsent, "user.consent")
		case "ext":
			d.userExt()
		default: // yob, gender, geo, data, eids…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}

// userExt reads user.ext: the 2.5 place of the consent string.
func (d *bidRequestDecoder) userExt() {
	if !d.usedObject(fieldUser, topField("user.ext")) {
		return
	}
	for key, ok := d.it.ReadObject(); ok; key, ok = d.it.ReadObject() {
		switch string(key) {
		case "consent":
			d.r.signals.extTC, _ = d.signalText(fieldConsent, "user.ext.consent")
		default: // eids, prebid…
			d.it.Skip()
		}
		if d.it.Err() != nil {
			return
		}
	}
}
