package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"
)

// OpenRTB translates a url-encoded bid request body of the recbid contract
// (as Requests and PostData write them) into the OpenRTB 2.6 BidRequest that
// dspd's POST /openrtb2/bid decides the same way, as one line of JSON
// without a newline:
//
//   - id → id; imp_id → imp[0].id; w, h → imp[0].banner as w/h, as a
//     single format[] entry, or both (the choice hashed from the id, so that
//     the corpus exercises every form); floor → imp[0].bidfloor, its
//     literal text kept ("1.50"); cur → imp[0].bidfloorcur, and also cur[]
//     when it is USD; secure → imp[0].secure; pos → imp[0].banner.pos;
//   - site, page, ref → site; bundle, app_name → app; cat → the cat[] of
//     site (or of app); bcat, badv → bcat[], badv[];
//   - os, devtype, ua, ip, osv, make, model, ifa, lmt, connectiontype,
//     carrier, lang → device; country → device.geo.country as ISO 3166-1
//     alpha-3; region → device.geo.region without its country prefix (one
//     request in five keeps the prefix); city, lat, lon → device.geo;
//   - uid → user.id (one request in four: user.buyeruid); gdpr →
//     regs.ext.gdpr; tmax, test → tmax, test;
//   - ts is dropped: OpenRTB has no request time, dspd uses its clock.
//
// Keys outside this list are an error.
func OpenRTB(form string) (string, error) {
	h := fnv.New32a()
	q, err := url.ParseQuery(form)
	if err != nil {
		return "", err
	}
	h.Write([]byte(q.Get("id")))
	v := h.Sum32()
	return openRTB(q, openrtbVariant{sizes: int(v % 3), prefixRegion: v/3%5 == 0, buyerUID: v/15%4 == 0})
}

// OpenRTBRequests translates bodies with OpenRTB, one for one.
func OpenRTBRequests(bodies []string) ([]string, error) {
	out := make([]string, len(bodies))
	for i, b := range bodies {
		var err error
		if out[i], err = OpenRTB(b); err != nil {
			return nil, fmt.Errorf("request %d: %w", i+1, err)
		}
	}
	return out, nil
}

// OpenRTBPostData returns PostData as an OpenRTB 2.6 BidRequest (the file
// loadgen -p posts to /openrtb2/bid): its banner gives both w/h and
// format[], its region is "31" in "CHN", its user is user.id. It wins the
// same bid as PostData.
func OpenRTBPostData() string {
	q, err := url.ParseQuery(PostData())
	if err != nil {
		panic(err)
	}
	s, err := openRTB(q, openrtbVariant{sizes: sizesBoth})
	if err != nil {
		panic(err)
	}
	return s
}

// openrtbVariant picks among equivalent ways of writing a request.
type openrtbVariant struct {
	sizes        int  // sizesWH, sizesFormat or sizesBoth
	prefixRegion bool // region as "US-CA" rather than "CA"
	buyerUID     bool // uid as user.buyeruid rather than user.id
}

const (
	sizesWH = iota
	sizesFormat
	sizesBoth
)

// alpha3 maps the alpha-2 codes of the generated countries to alpha-3.
var alpha3 = map[string]string{
	"CN": "CHN", "US": "USA", "GB": "GBR", "DE": "DEU", "JP": "JPN", "FR": "FRA", "IN": "IND", "BR": "BRA",
	"CA": "CAN", "AU": "AUS", "KR": "KOR", "ES": "ESP", "IT": "ITA", "MX": "MEX", "ID": "IDN",
}

// The BidRequest, in the key order written.
type (
	ortbRequest struct {
		ID     string      `json:"id"`
		Imp    []ortbImp   `json:"imp"`
		Site   *ortbSite   `json:"site,omitempty"`
		App    *ortbApp    `json:"app,omitempty"`
		Device *ortbDevice `json:"device,omitempty"`
		User   *ortbUser   `json:"user,omitempty"`
		At     int         `json:"at"`
		TMax   json.Number `json:"tmax,omitempty"`
		Test   json.Number `json:"test,omitempty"`
		Cur    []string    `json:"cur,omitempty"`
		BCat   []string    `json:"bcat,omitempty"`
		BAdv   []string    `json:"badv,omitempty"`
		Regs   *ortbRegs   `json:"regs,omitempty"`
	}
	ortbImp struct {
		ID          string      `json:"id"`
		Banner      ortbBanner  `json:"banner"`
		BidFloor    json.Number `json:"bidfloor,omitempty"`
		BidFloorCur string      `json:"bidfloorcur,omitempty"`
		Secure      json.Number `json:"secure,omitempty"`
	}
	ortbBanner struct {
		W      json.Number  `json:"w,omitempty"`
		H      json.Number  `json:"h,omitempty"`
		Format []ortbFormat `json:"format,omitempty"`
		Pos    json.Number  `json:"pos,omitempty"`
	}
	ortbFormat struct {
		W json.Number `json:"w"`
		H json.Number `json:"h"`
	}
	ortbSite struct {
		Domain string   `json:"domain,omitempty"`
		Page   string   `json:"page,omitempty"`
		Ref    string   `json:"ref,omitempty"`
		Cat    []string `json:"cat,omitempty"`
	}
	ortbApp struct {
		Bundle string   `json:"bundle,omitempty"`
		Name   string   `json:"name,omitempty"`
		Cat    []string `json:"cat,omitempty"`
	}
	ortbDevice struct {
		UA             string      `json:"ua,omitempty"`
		IP             string      `json:"ip,omitempty"`
		Geo            *ortbGeo    `json:"geo,omitempty"`
		DeviceType     json.Number `json:"devicetype,omitempty"`
		Make           string      `json:"make,omitempty"`
		Model          string      `json:"model,omitempty"`
		OS             string      `json:"os,omitempty"`
		OSV            string      `json:"osv,omitempty"`
		IFA            string      `json:"ifa,omitempty"`
		Lmt            json.Number `json:"lmt,omitempty"`
		ConnectionType json.Number `json:"connectiontype,omitempty"`
		Carrier        string      `json:"carrier,omitempty"`
		Language       string      `json:"language,omitempty"`
	}
	ortbGeo struct {
		Country string      `json:"country,omitempty"`
		Region  string      `json:"region,omitempty"`
		City    string      `json:"city,omitempty"`
		Lat     json.Number `json:"lat,omitempty"`
		Lon     json.Number `json:"lon,omitempty"`
	}
	ortbUser struct {
		ID       string `json:"id,omitempty"`
		BuyerUID string `json:"buyeruid,omitempty"`
	}
	ortbRegs struct {
		Ext struct {
			GDPR json.Number `json:"gdpr"`
		} `json:"ext"`
	}
)

// formKeys are the keys OpenRTB translates.
var formKeys = map[string]bool{
	"id": true, "imp_id": true, "tmax": true, "ts": true, "test": true, "secure": true, "w": true, "h": true,
	"pos": true, "floor": true, "cur": true, "site": true, "page": true, "ref": true, "bundle": true,
	"app_name": true, "cat": true, "bcat": true, "badv": true, "ua": true, "ip": true, "os": true, "osv": true,
	"make": true, "model": true, "devtype": true, "ifa": true, "lmt": true, "connectiontype": true,
	"carrier": true, "lang": true, "country": true, "region": true, "city": true, "lat": true, "lon": true,
	"gdpr": true, "uid": true,
}

func openRTB(q url.Values, v openrtbVariant) (string, error) {
	for k := range q {
		if !formKeys[k] {
			return "", fmt.Errorf("key %q has no OpenRTB translation", k)
		}
	}
	get := q.Get
	list := func(k string) []string {
		if s := get(k); s != "" {
			return strings.Split(s, ",")
		}
		return nil
	}
	imp := ortbImp{
		ID:       get("imp_id"),
		BidFloor: json.Number(get("floor")),
		Secure:   json.Number(get("secure")),
	}
	w, h := json.Number(get("w")), json.Number(get("h"))
	if v.sizes != sizesFormat {
		imp.Banner.W, imp.Banner.H = w, h
	}
	if v.sizes != sizesWH {
		imp.Banner.Format = []ortbFormat{{W: w, H: h}}
	}
	imp.Banner.Pos = json.Number(get("pos"))
	r := ortbRequest{ID: get("id"), Imp: []ortbImp{imp}, At: 1, TMax: json.Number(get("tmax")), Test: json.Number(get("test"))}
	if cur := get("cur"); cur != "" {
		r.Imp[0].BidFloorCur = cur
		if strings.EqualFold(cur, "USD") {
			r.Cur = []string{cur}
		}
	}
	cat := list("cat")
	switch {
	case get("bundle") != "" && get("site") == "":
		r.App = &ortbApp{Bundle: get("bundle"), Name: get("app_name"), Cat: cat}
	default:
		r.Site = &ortbSite{Domain: get("site"), Page: get("page"), Ref: get("ref"), Cat: cat}
		if get("bundle") != "" {
			r.App = &ortbApp{Bundle: get("bundle"), Name: get("app_name")}
		}
	}
	r.BCat, r.BAdv = list("bcat"), list("badv")

	dev := ortbDevice{
		UA: get("ua"), IP: get("ip"), DeviceType: json.Number(get("devtype")), Make: get("make"),
		Model: get("model"), OS: get("os"), OSV: get("osv"), IFA: get("ifa"), Lmt: json.Number(get("lmt")),
		ConnectionType: json.Number(get("connectiontype")), Carrier: get("carrier"), Language: get("lang"),
	}
	geo := ortbGeo{City: get("city"), Lat: json.Number(get("lat")), Lon: json.Number(get("lon"))}
	geo.Country, geo.Region = openrtbGeo(q, v.prefixRegion)
	if geo != (ortbGeo{}) {
		dev.Geo = &geo
	}
	if dev != (ortbDevice{}) {
		r.Device = &dev
	}
	if uid := get("uid"); uid != "" {
		r.User = &ortbUser{ID: uid}
		if v.buyerUID {
			r.User = &ortbUser{BuyerUID: uid}
		}
	}
	if g := get("gdpr"); g != "" {
		r.Regs = &ortbRegs{}
		r.Regs.Ext.GDPR = json.Number(g)
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&r); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
