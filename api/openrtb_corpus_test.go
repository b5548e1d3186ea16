package api_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/synth"
)

const exchangeCorpus = "../testdata/openrtb/exchange.jsonl"

// corpusImp is what the corpus test reads of an impression, independently
// of the server's decoder.
type corpusImp struct {
	ID     string `json:"id"`
	Banner *struct {
		W      int `json:"w"`
		H      int `json:"h"`
		Format []struct {
			W int `json:"w"`
			H int `json:"h"`
		} `json:"format"`
	} `json:"banner"`
	Video  *corpusVideo `json:"video"`
	Native *struct {
		Request json.RawMessage `json:"request"`
	} `json:"native"`
	Audio       json.RawMessage `json:"audio"`
	PMP         *corpusPMP      `json:"pmp"`
	BidFloor    json.Number     `json:"bidfloor"`
	BidFloorCur string          `json:"bidfloorcur"`
}

// corpusVideo is what the test reads of imp.video.
type corpusVideo struct {
	Mimes       []string `json:"mimes"`
	MinDuration int      `json:"minduration"`
	MaxDuration int      `json:"maxduration"`
	RqdDurs     []int    `json:"rqddurs"`
	Protocols   []int    `json:"protocols"`
	W           int      `json:"w"`
	H           int      `json:"h"`
	Linearity   int      `json:"linearity"`
	MinBitrate  int      `json:"minbitrate"`
	MaxBitrate  int      `json:"maxbitrate"`
}

// corpusPMP is imp.pmp.
type corpusPMP struct {
	PrivateAuction int          `json:"private_auction"`
	Deals          []corpusDeal `json:"deals"`
}

type corpusDeal struct {
	ID          string      `json:"id"`
	BidFloor    json.Number `json:"bidfloor"`
	BidFloorCur string      `json:"bidfloorcur"`
	At          int         `json:"at"`
	WSeat       []string    `json:"wseat"`
	WADomain    []string    `json:"wadomain"`
}

// kind is what dspd decides the impression as: a banner if it has one,
// else a video, else a native ad; audio and anything else get no bid.
func (imp *corpusImp) kind() string {
	switch {
	case imp.Banner != nil:
		return "banner"
	case imp.Video != nil:
		return "video"
	case imp.Native != nil:
		return "native"
	case imp.Audio != nil:
		return "audio"
	}
	return "other"
}

// deal returns the impression's deal of that id, if it offers one.
func (imp *corpusImp) deal(id string) (corpusDeal, bool) {
	if imp.PMP != nil {
		for _, d := range imp.PMP.Deals {
			if d.ID == id {
				return d, true
			}
		}
	}
	return corpusDeal{}, false
}

// offers reports whether the impression offers a w×h banner: as banner
// w/h or among the first 16 of its formats (dspd's limit).
func (imp *corpusImp) offers(w, h int) bool {
	if imp.Banner == nil {
		return false
	}
	if imp.Banner.W == w && imp.Banner.H == h {
		return true
	}
	for i, f := range imp.Banner.Format {
		if i < maxFormats && f.W == w && f.H == h {
			return true
		}
	}
	return false
}

// corpusCampaign is what the test reads of a campaign of the campaigns
// file.
type corpusCampaign struct {
	ID          string           `json:"id"`
	ADomain     []string         `json:"adomain"`
	Deals       []string         `json:"deals"`
	OpenAuction *bool            `json:"open_auction"`
	Creatives   []corpusCreative `json:"creatives"`
}

type corpusCreative struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	W           int    `json:"w"`
	H           int    `json:"h"`
	DurationS   int    `json:"duration_s"`
	Mime        string `json:"mime"`
	BitrateKbps int    `json:"bitrate_kbps"`
	VASTVersion string `json:"vast_version"`
}

// readCorpusCampaigns reads the campaigns file by id.
func readCorpusCampaigns(t *testing.T, path string) map[string]*corpusCampaign {
	t.Helper()
	var file struct {
		Campaigns []*corpusCampaign `json:"campaigns"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFile(t, path)), &file))
	out := make(map[string]*corpusCampaign, len(file.Campaigns))
	for _, c := range file.Campaigns {
		out[c.ID] = c
	}
	return out
}

// corpusVAST lists the VAST versions, oldest first, with the protocol id
// of each one's InLine (AdCOM).
var corpusVAST = []struct {
	version  string
	protocol int
}{{"2.0", 2}, {"3.0", 3}, {"4.0", 7}, {"4.1", 11}, {"4.2", 13}}

func vastRank(version string) int {
	for i, v := range corpusVAST {
		if v.version == version {
			return i
		}
	}
	return -1
}

// nativeRequired reads a native request (a JSON string holding it, or the
// object; either may be wrapped as {"native":…}) and returns its required
// asset ids, all its asset ids, and whether it was wrapped.
func nativeRequired(t *testing.T, raw json.RawMessage) (required, all []int, wrapped bool) {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var req struct {
		Native *json.RawMessage `json:"native"`
		Assets []struct {
			ID       int `json:"id"`
			Required int `json:"required"`
		} `json:"assets"`
	}
	require.NoError(t, json.Unmarshal(raw, &req))
	if req.Native != nil {
		wrapped = true
		require.NoError(t, json.Unmarshal(*req.Native, &req))
	}
	for _, a := range req.Assets {
		all = append(all, a.ID)
		if a.Required == 1 {
			required = append(required, a.ID)
		}
	}
	return required, all, wrapped
}

// corpusRate reads the USD value of one unit of cur from the rates file,
// by the rule of package currency, as an exact rational.
func corpusRate(t *testing.T, conv map[string]map[string]json.Number, cur string) *big.Rat {
	t.Helper()
	cur = strings.ToUpper(cur)
	if cur == "" || cur == "USD" {
		return big.NewRat(1, 1)
	}
	if r, ok := conv[cur]["USD"]; ok {
		v, ok := new(big.Rat).SetString(string(r))
		require.True(t, ok)
		return v
	}
	if r, ok := conv["USD"][cur]; ok {
		v, ok := new(big.Rat).SetString(string(r))
		require.True(t, ok)
		return v.Inv(v)
	}
	return nil
}

// corpusBid is what the test reads of a bid.
type corpusBid struct {
	ImpID   string      `json:"impid"`
	Price   json.Number `json:"price"`
	CID     string      `json:"cid"`
	CrID    string      `json:"crid"`
	ADomain []string    `json:"adomain"`
	Cat     []string    `json:"cat"`
	W       int         `json:"w"`
	H       int         `json:"h"`
	DealID  string      `json:"dealid"`
	MType   int         `json:"mtype"`
	Adm     string      `json:"adm"`
}

// kindTally counts one kind of impression: how many, the status of the
// requests they came in, and the bids on them.
type kindTally struct {
	imps, bids, dealBids int
	status               map[int]int
}

// TestOpenRTBExchangeCorpus sends every request of testdata/openrtb/
// exchange.jsonl, traffic shaped as real exchanges send it (a few with
// malformed optional fields; banner, video, native and audio
// impressions; deals), to a server with the corpus's currency rates and
// testdata's campaigns: none is answered 400, since the field policy
// makes every one servable, and every bid is checked against its
// impression and the campaigns file:
//
//   - its kind: mtype 1, 2 or 4 as the impression is decided (a banner if
//     it has one, else a video, else a native ad), and a creative of that
//     type;
//   - a banner: a size the impression offers, the creative's;
//   - a video: the creative's mime among the impression's mimes, its
//     duration within minduration–maxduration or among rqddurs, its
//     bitrate and aspect within the impression's bounds, and an adm that
//     is a VAST InLine document in the creative's version or an older one
//     the impression's protocols accept, whose media file is the
//     creative's;
//   - a native ad: an adm that is a Native 1.2 response carrying every
//     required asset of the request, and no asset it did not ask for;
//   - the price: at or above the impression's floor in USD, or for a deal
//     bid the deal's floor in USD (equal to it when the deal's at is 3);
//   - a dealid only for a deal the impression offers, whose wseat and
//     wadomain admit dspd and the campaign, and which the campaign lists;
//     an open-auction bid never from an open_auction:false campaign, nor
//     in a private auction;
//   - blocked by none of the request's bcat and badv.
func TestOpenRTBExchangeCorpus(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(readFile(t, exchangeCorpus)), "\n")
	require.GreaterOrEqual(t, len(lines), 1000)
	var rates struct {
		Conversions map[string]map[string]json.Number `json:"conversions"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFile(t, corpusRates)), &rates))
	campaigns := readCorpusCampaigns(t, testdataCampaigns)
	srv := buildTestServer(t, testdataCampaigns, serverOptions{rates: corpusRates, vendor: synth.GVLVendorID})

	status := map[int]int{}
	var bids, convertedBids, roundedBids, badFieldRequests, dealBids, fixedPriceBids, downgraded int
	kinds := []string{"banner", "video", "native", "audio", "deal", "deal (ours)"}
	tally := map[string]*kindTally{}
	for _, k := range kinds {
		tally[k] = &kindTally{status: map[int]int{}}
	}
	legal := map[string]int{} // what each request's privacy signals allowed, and what came of it
	for n, line := range lines {
		var req struct {
			Imp  []json.RawMessage `json:"imp"`
			BCat []any             `json:"bcat"`
			BAdv []any             `json:"badv"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &req), "line %d", n+1)
		imps := map[string]*corpusImp{}
		var impKinds [][]string // each impression's rows of the table
		var impIDs []string
		for _, raw := range req.Imp {
			imp := new(corpusImp)
			require.NoError(t, json.Unmarshal(raw, imp), "line %d", n+1)
			imps[imp.ID] = imp
			rows := []string{imp.kind()}
			if imp.PMP != nil && len(imp.PMP.Deals) > 0 {
				rows = append(rows, "deal")
				if slices.ContainsFunc(imp.PMP.Deals, func(d corpusDeal) bool { return strings.HasPrefix(d.ID, "D-") }) {
					rows = append(rows, "deal (ours)")
				}
			}
			impKinds = append(impKinds, rows)
			impIDs = append(impIDs, imp.ID)
		}

		before := consentCounts(t, srv)
		w := postOpenRTB(srv.public, line)
		status[w.Code]++
		for _, rows := range impKinds {
			for _, k := range rows {
				if tl, ok := tally[k]; ok {
					tl.imps++
					tl.status[w.Code]++
				}
			}
		}
		require.Contains(t, []int{http.StatusOK, http.StatusNoContent}, w.Code, "line %d: %s", n+1, w.Body.String())
		outcome := changedOutcome(t, before, consentCounts(t, srv))
		userLevel := outcome == "no_gdpr" || outcome == "consented"
		switch {
		case w.Code == http.StatusOK && userLevel:
			legal["bid with user-level processing"]++
		case w.Code == http.StatusOK:
			legal["bid contextually"]++
		case w.Header().Get("X-Nobid-Reason") == "consent":
			legal["no bid: consent"]++
		default:
			legal["no bid: other reasons"]++
		}
		if w.Code != http.StatusOK {
			continue
		}
		var resp struct {
			Cur     string `json:"cur"`
			SeatBid []struct {
				Bid []corpusBid `json:"bid"`
			} `json:"seatbid"`
		}
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp), "line %d", n+1)
		assert.Equal(t, "USD", resp.Cur)
		require.Len(t, resp.SeatBid, 1)
		for _, b := range resp.SeatBid[0].Bid {
			bids++
			imp, ok := imps[b.ImpID]
			require.True(t, ok, "line %d: a bid for impression %q the request does not have", n+1, b.ImpID)
			for i, id := range impIDs {
				if id == b.ImpID {
					for _, k := range impKinds[i] {
						if tl, ok := tally[k]; ok {
							tl.bids++
							if b.DealID != "" {
								tl.dealBids++
							}
						}
					}
				}
			}
			at := fmt.Sprintf("line %d, imp %s, %s/%s", n+1, b.ImpID, b.CID, b.CrID)
			c, ok := campaigns[b.CID]
			require.True(t, ok, "%s: a campaign the file does not have", at)
			ci := slices.IndexFunc(c.Creatives, func(cr corpusCreative) bool { return cr.ID == b.CrID })
			require.GreaterOrEqual(t, ci, 0, "%s: a creative the campaign does not have", at)
			cr := c.Creatives[ci]
			crType := cr.Type
			if crType == "" {
				crType = "banner"
			}

			kind := imp.kind()
			require.Equal(t, kind, crType, "%s: a %s creative on a %s impression", at, crType, kind)
			switch kind {
			case "banner":
				assert.Equal(t, 1, b.MType, "%s: typed banner", at)
				assert.True(t, imp.offers(b.W, b.H), "%s: %dx%d is not offered", at, b.W, b.H)
				assert.Equal(t, []int{cr.W, cr.H}, []int{b.W, b.H}, "%s: the creative's size", at)
			case "video":
				assert.Equal(t, 2, b.MType, "%s: typed video", at)
				assert.Equal(t, []int{cr.W, cr.H}, []int{b.W, b.H}, "%s: the video's size", at)
				checkCorpusVideo(t, at, imp.Video, &cr, b.Adm, &downgraded)
			case "native":
				assert.Equal(t, 4, b.MType, "%s: typed native", at)
				assert.Zero(t, b.W+b.H, "%s: a native ad has no size", at)
				checkCorpusNative(t, at, imp.Native.Request, b.Adm)
			default:
				t.Errorf("%s: a bid on a %s impression", at, kind)
			}

			price, ok := new(big.Rat).SetString(string(b.Price))
			require.True(t, ok)
			if b.DealID != "" {
				dealBids++
				d, ok := imp.deal(b.DealID)
				require.True(t, ok, "%s: deal %q is not offered", at, b.DealID)
				assert.Contains(t, c.Deals, b.DealID, "%s: the campaign does not list the deal", at)
				if d.WSeat != nil {
					assert.Contains(t, d.WSeat, "dsp", "%s: the deal is for other seats", at)
				}
				if d.WADomain != nil {
					assert.True(t, slices.ContainsFunc(c.ADomain, func(a string) bool { return slices.Contains(d.WADomain, a) }),
						"%s: the deal is for other advertisers %v", at, d.WADomain)
				}
				floorUSD := new(big.Rat)
				if d.BidFloor != "" {
					floor, ok := new(big.Rat).SetString(string(d.BidFloor))
					require.True(t, ok)
					rate := corpusRate(t, rates.Conversions, d.BidFloorCur)
					require.NotNil(t, rate, "%s: a bid on a deal floor in %s, which has no rate", at, d.BidFloorCur)
					floorUSD.Mul(floor, rate)
				}
				assert.True(t, price.Cmp(floorUSD) >= 0, "%s: price %s under the deal's floor %s %s (%s USD)",
					at, b.Price, d.BidFloor, d.BidFloorCur, floorUSD.FloatString(9))
				if d.At == 3 {
					fixedPriceBids++
					over := new(big.Rat).Sub(price, floorUSD)
					assert.True(t, over.Cmp(big.NewRat(1, 1_000_000)) < 0,
						"%s: price %s is not the deal's fixed price %s USD", at, b.Price, floorUSD.FloatString(9))
				}
			} else {
				assert.True(t, c.OpenAuction == nil || *c.OpenAuction, "%s: an open-auction bid from a deal-only campaign", at)
				assert.False(t, imp.PMP != nil && imp.PMP.PrivateAuction == 1, "%s: an open-auction bid in a private auction", at)
				if imp.BidFloor != "" {
					floor, ok := new(big.Rat).SetString(string(imp.BidFloor))
					require.True(t, ok)
					rate := corpusRate(t, rates.Conversions, imp.BidFloorCur)
					require.NotNil(t, rate, "%s: a bid on a floor in %s, which has no rate", at, imp.BidFloorCur)
					floorUSD := floor.Mul(floor, rate)
					assert.True(t, price.Cmp(floorUSD) >= 0, "%s: price %s under the floor %s %s (%s USD)",
						at, b.Price, imp.BidFloor, imp.BidFloorCur, floorUSD.FloatString(9))
					if c := strings.ToUpper(imp.BidFloorCur); c != "" && c != "USD" {
						convertedBids++
					}
					if len(imp.BidFloor) > 10 {
						roundedBids++
					}
				}
			}
			for _, item := range req.BCat {
				if s, ok := item.(string); ok {
					for _, c := range b.Cat {
						assert.False(t, strings.HasPrefix(strings.ToUpper(c), strings.ToUpper(s)) &&
							(len(c) == len(s) || c[len(s)] == '-'), "%s: cat %s blocked by %s", at, c, s)
					}
				}
			}
			for _, item := range req.BAdv {
				if s, ok := item.(string); ok {
					assert.NotContains(t, b.ADomain, s, "%s: adomain blocked", at)
				}
			}
		}
		if strings.Contains(line, `"test":2`) || strings.Contains(line, `"domain":"https://`) || strings.Contains(line, `"geo":[]`) {
			badFieldRequests++
		}
	}
	t.Logf("%d requests: %d answered 200 (%d bids: %d on converted floors, %d on floors of more than 6 decimals, "+
		"%d in deals of which %d at a fixed price, %d videos in an older VAST), %d 204, %d 400; "+
		"%d of them with a malformed optional field",
		len(lines), status[200], bids, convertedBids, roundedBids, dealBids, fixedPriceBids, downgraded,
		status[204], status[400], badFieldRequests)
	pct := func(k, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%d (%.1f%%)", k, 100*float64(k)/float64(n))
	}
	var table strings.Builder
	fmt.Fprintf(&table, "impressions by kind, the status of the requests they came in, and the bids on them:\n"+
		"%-12s %6s %16s %16s %8s %16s %14s\n", "kind", "imps", "request 200", "request 204", "400", "bid on", "in a deal")
	for _, k := range kinds {
		tl := tally[k]
		fmt.Fprintf(&table, "%-12s %6d %16s %16s %8d %16s %14s\n", k, tl.imps, pct(tl.status[200], tl.imps),
			pct(tl.status[204], tl.imps), tl.status[400], pct(tl.bids, tl.imps), pct(tl.dealBids, tl.imps))
	}
	t.Log(table.String())
	t.Logf("privacy signals (vendor %d): %v", synth.GVLVendorID, legal)
	assert.Positive(t, legal["bid contextually"])
	assert.Positive(t, legal["no bid: consent"])
	assert.Greater(t, legal["bid with user-level processing"], legal["bid contextually"])
	assert.Zero(t, status[400])
	// The corpus exercises what it should: bids on converted floors, on
	// rounded ones, and on requests with malformed optional fields; video
	// bids (some in an older VAST), native bids, and deal bids (some at a
	// fixed price).
	assert.Positive(t, convertedBids)
	assert.Positive(t, roundedBids)
	assert.Positive(t, badFieldRequests)
	assert.Greater(t, status[200], len(lines)/4)
	assert.Positive(t, tally["video"].bids, "video bids")
	assert.Positive(t, downgraded, "videos answered in an older VAST")
	assert.Positive(t, tally["native"].bids, "native bids")
	assert.Positive(t, dealBids, "deal bids")
	assert.Positive(t, fixedPriceBids, "fixed-price deal bids")

	m := get(srv.admin, "/metrics").Body.String()
	assert.Regexp(t, `dspd_openrtb_invalid_fields_total\{field="site.domain"\} [1-9]`, m)
	assert.Contains(t, m, `dspd_openrtb_requests_total{exchange="default",outcome="rejected"} 0`+"\n")
}

// checkCorpusVideo checks a video bid against its impression and its
// creative (mime, duration, bitrate, aspect, VAST version).
func checkCorpusVideo(t *testing.T, at string, v *corpusVideo, cr *corpusCreative, adm string, downgraded *int) {
	t.Helper()
	mime, dur, w, h, bitrate, version := cr.Mime, cr.DurationS, cr.W, cr.H, cr.BitrateKbps, cr.VASTVersion
	assert.True(t, slices.ContainsFunc(v.Mimes, func(m string) bool { return strings.EqualFold(m, mime) }),
		"%s: mime %s not in %v", at, mime, v.Mimes)
	if len(v.RqdDurs) > 0 {
		assert.Contains(t, v.RqdDurs, dur, "%s: duration %d s not required", at, dur)
	} else {
		assert.True(t, dur >= v.MinDuration && (v.MaxDuration == 0 || dur <= v.MaxDuration),
			"%s: duration %d s outside %d–%d", at, dur, v.MinDuration, v.MaxDuration)
	}
	assert.NotEqual(t, 2, v.Linearity, "%s: a non-linear impression", at)
	assert.True(t, (v.MinBitrate == 0 || bitrate >= v.MinBitrate) && (v.MaxBitrate == 0 || bitrate <= v.MaxBitrate),
		"%s: bitrate %d outside %d–%d", at, bitrate, v.MinBitrate, v.MaxBitrate)
	if v.W > 0 && v.H > 0 { // the aspect ratio within 10 %
		a, b := w*v.H, v.W*h
		assert.LessOrEqual(t, 10*max(a-b, b-a), b, "%s: %dx%d for a %dx%d player", at, w, h, v.W, v.H)
	}
	doc := parseVAST(t, adm)
	if version == "" {
		version = "4.2"
	}
	got, own := vastRank(doc.Version), vastRank(version)
	require.GreaterOrEqual(t, got, 0, "%s: VAST %q", at, doc.Version)
	assert.LessOrEqual(t, got, own, "%s: VAST %s for a %s creative", at, doc.Version, version)
	if len(v.Protocols) > 0 {
		assert.Contains(t, v.Protocols, corpusVAST[got].protocol, "%s: VAST %s not accepted by %v", at, doc.Version, v.Protocols)
	}
	if got < own {
		*downgraded++
	}
	creatives := doc.Ad.InLine.Creatives.Creative
	require.NotEmpty(t, creatives, at)
	require.NotNil(t, creatives[0].Linear, at)
	require.NotEmpty(t, creatives[0].Linear.MediaFiles, at)
	assert.Equal(t, mime, creatives[0].Linear.MediaFiles[0].Type, at)
}

// checkCorpusNative checks a native bid's adm against the request: a
// Native 1.2 response (wrapped as the request was) with every required
// asset and no asset the request lacks.
func checkCorpusNative(t *testing.T, at string, request json.RawMessage, adm string) {
	t.Helper()
	required, all, wrapped := nativeRequired(t, request)
	type response struct {
		Ver    string `json:"ver"`
		Assets []struct {
			ID int `json:"id"`
		} `json:"assets"`
		Link *struct {
			URL string `json:"url"`
		} `json:"link"`
	}
	var r response
	if wrapped {
		var w struct {
			Native *response `json:"native"`
		}
		require.NoError(t, json.Unmarshal([]byte(adm), &w), "%s: %s", at, adm)
		require.NotNil(t, w.Native, "%s: not wrapped as the request was: %s", at, adm)
		r = *w.Native
	} else {
		require.NoError(t, json.Unmarshal([]byte(adm), &r), "%s: %s", at, adm)
	}
	assert.Equal(t, "1.2", r.Ver, at)
	require.NotNil(t, r.Link, "%s: no link", at)
	var ids []int
	for _, a := range r.Assets {
		ids = append(ids, a.ID)
		assert.Contains(t, all, a.ID, "%s: asset %d not asked for", at, a.ID)
	}
	for _, id := range required {
		assert.Contains(t, ids, id, "%s: required asset %d missing", at, id)
	}
}

// consentCounts reads dspd_consent_total by outcome.
func consentCounts(t *testing.T, srv *testServer) map[string]float64 {
	t.Helper()
	mfs, err := srv.Gatherer().Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "dspd_consent_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	return out
}

// changedOutcome is the one outcome counted between two readings.
func changedOutcome(t *testing.T, before, after map[string]float64) string {
	t.Helper()
	var changed []string
	for o, n := range after {
		if n != before[o] {
			changed = append(changed, o)
		}
	}
	require.Len(t, changed, 1, "one outcome per request")
	return changed[0]
}
