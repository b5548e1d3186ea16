package api_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"
	"github.com/recbid/dspd/events"
)

// Deals, video and native on OpenRTB (openrtb.md sections 3 and 4).

// mediaCampaigns: a video campaign (two creatives: 30 s 16:9 VAST 4.2 mp4,
// 15 s 4:3 VAST 3.0 webm), a native one, a deal-only banner campaign in
// D-1 and D-2, and an open banner campaign.
var mediaCampaigns = []string{
	`{"id":"c-video","advertiser":"Video & Co","adomain":["video.example"],"cat":["IAB1"],"status":"active","bid_cpm":12,
	  "creatives":[{"id":"v-30","type":"video","w":1280,"h":720,"duration_s":30,"mime":"video/mp4","media_url":"https://cdn.example/30.mp4",
	    "bitrate_kbps":2000,"click_url":"https://video.example/land"},
	   {"id":"v-15","type":"video","w":640,"h":480,"duration_s":15,"mime":"video/webm","media_url":"https://cdn.example/15.webm",
	    "bitrate_kbps":800,"click_url":"https://video.example/land15","vast_version":"3.0"}]}`,
	`{"id":"c-native","advertiser":"Native Inc","adomain":["native.example"],"cat":["IAB2"],"status":"active","bid_cpm":4,
	  "creatives":[{"id":"n-1","type":"native","title":"Shoes \"that\" <run>","body":"Light shoes.","sponsored":"Native Inc","cta":"Buy",
	    "image_url":"https://cdn.example/1200x627.jpg","image_w":1200,"image_h":627,"icon_url":"https://cdn.example/i.png","icon_w":80,"icon_h":80,
	    "click_url":"https://native.example/land"}]}`,
	`{"id":"c-deal","advertiser":"Deal Ltd","adomain":["deal.example"],"cat":["IAB3"],"status":"active","bid_cpm":9,
	  "deals":["D-1","D-2"],"open_auction":false,
	  "creatives":[{"id":"d-1","w":300,"h":250,"image_url":"https://cdn.example/d.png","click_url":"https://deal.example/"}]}`,
	`{"id":"c-open","advertiser":"Open","adomain":["open.example"],"cat":["IAB3"],"status":"active","bid_cpm":3,
	  "creatives":[{"id":"o-1","w":300,"h":250,"image_url":"https://cdn.example/o.png","click_url":"https://open.example/"}]}`,
}

// oneImp is a request of one impression.
func oneImp(imp string) string {
	return `{"id":"req-1","imp":[` + imp + `],"site":{"domain":"pub.example"},"device":{"os":"android"}}`
}

// onlyBid answers a request and returns its one bid.
func onlyBid(t *testing.T, srv *testServer, body string) bidResponseBid {
	t.Helper()
	w := postOpenRTB(srv.public, body)
	require.Equal(t, http.StatusOK, w.Code, "%s: %s", w.Header().Get("X-Nobid-Reason"), w.Body.String())
	var resp struct {
		SeatBid []struct {
			Bid []bidResponseBid `json:"bid"`
		} `json:"seatbid"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp), w.Body.String())
	require.Len(t, resp.SeatBid[0].Bid, 1)
	return resp.SeatBid[0].Bid[0]
}

type bidResponseBid struct {
	ImpID  string      `json:"impid"`
	Price  json.Number `json:"price"`
	CID    string      `json:"cid"`
	CrID   string      `json:"crid"`
	W, H   int
	DealID string `json:"dealid"`
	MType  int    `json:"mtype"`
	Adm    string `json:"adm"`
	NURL   string `json:"nurl"`
}

func noBid(t *testing.T, srv *testServer, body string) string {
	t.Helper()
	w := postOpenRTB(srv.public, body)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	return w.Header().Get("X-Nobid-Reason")
}

// vast is the part of a VAST document the tests read back.
type vast struct {
	XMLName xml.Name `xml:"VAST"`
	Version string   `xml:"version,attr"`
	Ad      struct {
		ID     string `xml:"id,attr"`
		InLine *struct {
			AdSystem    string `xml:"AdSystem"`
			AdServingID string `xml:"AdServingId"`
			AdTitle     string `xml:"AdTitle"`
			Impression  string `xml:"Impression"`
			Error       string `xml:"Error"`
			Creatives   struct {
				Creative []struct {
					ID     string `xml:"id,attr"`
					Linear *struct {
						Duration string `xml:"Duration"`
						Tracking []struct {
							Event string `xml:"event,attr"`
							URL   string `xml:",chardata"`
						} `xml:"TrackingEvents>Tracking"`
						ClickThrough string `xml:"VideoClicks>ClickThrough"`
						MediaFiles   []struct {
							Delivery string `xml:"delivery,attr"`
							Type     string `xml:"type,attr"`
							Width    int    `xml:"width,attr"`
							Height   int    `xml:"height,attr"`
							Bitrate  int    `xml:"bitrate,attr"`
							URL      string `xml:",chardata"`
						} `xml:"MediaFiles>MediaFile"`
					} `xml:"Linear"`
				} `xml:"Creative"`
			} `xml:"Creatives"`
		} `xml:"InLine"`
	} `xml:"Ad"`
}

func parseVAST(t *testing.T, adm string) vast {
	t.Helper()
	var v vast
	require.NoError(t, xml.Unmarshal([]byte(adm), &v), adm)
	require.NotNil(t, v.Ad.InLine, "an InLine ad")
	return v
}

func TestVideoBid(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, mediaCampaigns...), serverOptions{})
	imp := `{"id":"v1","video":{"mimes":["video/mp4","video/webm"],"minduration":5,"maxduration":60,"protocols":[2,3,7,11,13],"w":1280,"h":720,"plcmt":1}}`
	b := onlyBid(t, srv, oneImp(imp))
	assert.Equal(t, 2, b.MType)
	assert.Equal(t, "v-30", b.CrID, "the creative of the impression's size")
	assert.Equal(t, []int{1280, 720}, []int{b.W, b.H})
	v := parseVAST(t, b.Adm)
	assert.Equal(t, "4.2", v.Version)
	in := v.Ad.InLine
	assert.Equal(t, "v-30", v.Ad.ID)
	assert.Equal(t, "dspd", in.AdSystem)
	assert.Equal(t, "Video & Co", in.AdTitle, "escaped in XML, read back")
	assert.Regexp(t, `^[0-9a-f]{32}$`, in.AdServingID)
	assert.Contains(t, in.Impression, "http://localhost:9090/dsp/imp?b="+in.AdServingID)
	assert.Contains(t, in.Error, "/dsp/video?")
	assert.Contains(t, in.Error, "&e=error&")
	assert.True(t, strings.HasSuffix(in.Error, "&code=[ERRORCODE]"))
	lin := in.Creatives.Creative[0].Linear
	require.NotNil(t, lin)
	assert.Equal(t, "00:00:30", lin.Duration)
	var evs []string
	for _, tr := range lin.Tracking {
		evs = append(evs, tr.Event)
		assert.Contains(t, tr.URL, "/dsp/video?")
		assert.Contains(t, tr.URL, "&e="+tr.Event+"&")
	}
	assert.Equal(t, []string{"start", "firstQuartile", "midpoint", "thirdQuartile", "complete"}, evs)
	assert.Contains(t, lin.ClickThrough, "/dsp/click?")
	require.Len(t, lin.MediaFiles, 1)
	mf := lin.MediaFiles[0]
	assert.Equal(t, "progressive", mf.Delivery)
	assert.Equal(t, "video/mp4", mf.Type)
	assert.Equal(t, []int{1280, 720, 2000}, []int{mf.Width, mf.Height, mf.Bitrate})
	assert.Equal(t, "https://cdn.example/30.mp4", mf.URL)
}

func TestVideoMatching(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, mediaCampaigns...), serverOptions{})
	for _, tt := range []struct {
		name, video string
		crid, vast  string // "" crid: no bid
	}{
		{"no mimes: not servable", `{"minduration":5}`, "", ""},
		{"a mime no creative has", `{"mimes":["video/ogg"]}`, "", ""},
		{"webm only: the 15 s one", `{"mimes":["video/webm"]}`, "v-15", "3.0"},
		{"duration bounds", `{"mimes":["video/mp4","video/webm"],"maxduration":20}`, "v-15", "3.0"},
		{"required durations", `{"mimes":["video/mp4","video/webm"],"rqddurs":[30]}`, "v-30", "4.2"},
		{"required durations, none", `{"mimes":["video/mp4"],"rqddurs":[6,20]}`, "", ""},
		{"VAST 3.0 only: 4.2 answered as 3.0", `{"mimes":["video/mp4","video/webm"],"protocols":[3]}`, "v-30", "3.0"},
		{"VAST 4.0 only: the 3.0 creative cannot be written in it", `{"mimes":["video/webm"],"protocols":[7]}`, "", ""},
		{"VAST 2.0 only", `{"mimes":["video/webm"],"protocols":[2]}`, "v-15", "2.0"},
		{"VAST 4.0: 4.2 answered as 4.0", `{"mimes":["video/mp4"],"protocols":[7]}`, "v-30", "4.0"},
		{"wrappers only: nothing", `{"mimes":["video/mp4"],"protocols":[5,6,8]}`, "", ""},
		{"4:3 size: the 4:3 creative", `{"mimes":["video/mp4","video/webm"],"w":320,"h":240}`, "v-15", "3.0"},
		{"non-linear: not served", `{"mimes":["video/mp4"],"linearity":2}`, "", ""},
		{"bitrate", `{"mimes":["video/mp4","video/webm"],"maxbitrate":1000}`, "v-15", "3.0"},
		{"a bad part: absent", `{"mimes":["video/mp4"],"minduration":"five"}`, "v-30", "4.2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := oneImp(`{"id":"v1","video":` + tt.video + `}`)
			if tt.crid == "" {
				assert.Equal(t, "no_match", noBid(t, srv, body))
				return
			}
			b := onlyBid(t, srv, body)
			assert.Equal(t, tt.crid, b.CrID)
			assert.Equal(t, tt.vast, parseVAST(t, b.Adm).Version)
		})
	}
}

// nativeRequest is a Native 1.2 request with a title, a main image, an
// icon, a sponsored and a description asset, and an event tracker for
// impressions by image.
const nativeRequest = `{"ver":"1.2","assets":[{"id":1,"required":1,"title":{"len":90}},` +
	`{"id":2,"required":1,"img":{"type":3,"wmin":600,"hmin":300}},{"id":3,"img":{"type":1,"w":80,"h":80}},` +
	`{"id":4,"required":1,"data":{"type":1,"len":25}},{"id":5,"data":{"type":2,"len":140}}],` +
	`"eventtrackers":[{"event":1,"methods":[1,2]}]}`

func TestNativeBid(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, mediaCampaigns...), serverOptions{})
	asString, _ := json.Marshal(nativeRequest)
	for name, request := range map[string]string{"a JSON string": string(asString), "an object": nativeRequest} {
		t.Run(name, func(t *testing.T) {
			b := onlyBid(t, srv, oneImp(`{"id":"n1","native":{"request":`+request+`,"ver":"1.2"}}`))
			assert.Equal(t, 4, b.MType)
			assert.Equal(t, "n-1", b.CrID)
			var adm struct {
				Ver    string `json:"ver"`
				Assets []struct {
					ID    int `json:"id"`
					Title *struct {
						Text string `json:"text"`
					} `json:"title"`
					Img *struct {
						URL  string `json:"url"`
						W, H int
					} `json:"img"`
					Data *struct {
						Value string `json:"value"`
					} `json:"data"`
				} `json:"assets"`
				Link struct {
					URL string `json:"url"`
				} `json:"link"`
				EventTrackers []struct {
					Event, Method int
					URL           string `json:"url"`
				} `json:"eventtrackers"`
			}
			require.NoError(t, json.Unmarshal([]byte(b.Adm), &adm), b.Adm)
			assert.Equal(t, "1.2", adm.Ver)
			var ids []int
			for _, a := range adm.Assets {
				ids = append(ids, a.ID)
			}
			assert.Equal(t, []int{1, 2, 3, 4, 5}, ids, "the request's asset ids, in order")
			assert.Equal(t, `Shoes "that" <run>`, adm.Assets[0].Title.Text)
			assert.Equal(t, "https://cdn.example/1200x627.jpg", adm.Assets[1].Img.URL)
			assert.Equal(t, "https://cdn.example/i.png", adm.Assets[2].Img.URL)
			assert.Equal(t, "Native Inc", adm.Assets[3].Data.Value)
			assert.Contains(t, adm.Link.URL, "http://localhost:9090/dsp/click?b=")
			require.Len(t, adm.EventTrackers, 1)
			assert.Equal(t, 1, adm.EventTrackers[0].Event)
			assert.Equal(t, 1, adm.EventTrackers[0].Method)
			assert.Contains(t, adm.EventTrackers[0].URL, "/dsp/imp?b=")
		})
	}
	// A required asset the creative cannot fill: no bid.
	tooShort := strings.Replace(nativeRequest, `"len":90`, `"len":5`, 1)
	assert.Equal(t, "no_match", noBid(t, srv, oneImp(`{"id":"n1","native":{"request":`+tooShort+`}}`)))
	assert.Equal(t, "no_match", noBid(t, srv, oneImp(`{"id":"n1","native":{"request":"not json"}}`)))
}

func TestDeals(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, mediaCampaigns...), serverOptions{rates: corpusRates})
	banner := `"banner":{"w":300,"h":250},"bidfloor":0.5`
	for _, tt := range []struct {
		name, pmp   string
		cid, dealid string // "" cid: no bid
		price       string
	}{
		{"open auction: the deal-only campaign stays out", ``, "c-open", "", "3"},
		{"a deal of ours, open auction: the deal bid", `"pmp":{"deals":[{"id":"D-1","bidfloor":1}]}`, "c-deal", "D-1", "9"},
		{"a private auction of ours", `"pmp":{"private_auction":1,"deals":[{"id":"D-2"}]}`, "c-deal", "D-2", "9"},
		{"a private auction of others'", `"pmp":{"private_auction":1,"deals":[{"id":"D-9"}]}`, "", "", ""},
		{"a fixed price", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","bidfloor":7.25,"at":3}]}`, "c-deal", "D-1", "7.25"},
		{"a fixed price above the bid", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","bidfloor":9.5,"at":3}]}`, "", "", ""},
		{"a deal floor in EUR", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","bidfloor":8.5,"bidfloorcur":"EUR"}]}`, "", "", ""},
		{"a deal floor in EUR, cleared", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","bidfloor":8,"bidfloorcur":"EUR"}]}`, "c-deal", "D-1", "9"},
		{"wseat without us", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","wseat":["other"]}]}`, "", "", ""},
		{"wseat with us", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","wseat":["other","dsp"]}]}`, "c-deal", "D-1", "9"},
		{"wadomain for others", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","wadomain":["x.example"]}]}`, "", "", ""},
		{"wadomain for us", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","wadomain":["deal.example"]}]}`, "c-deal", "D-1", "9"},
		{"a malformed deal: not bid in", `"pmp":{"private_auction":1,"deals":[{"id":"D-1","bidfloor":"x"}]}`, "", "", ""},
		{"a deal not ours, open auction: open bid", `"pmp":{"deals":[{"id":"D-9"}]}`, "c-open", "", "3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			imp := `{"id":"1",` + banner
			if tt.pmp != "" {
				imp += "," + tt.pmp
			}
			body := oneImp(imp + "}")
			if tt.cid == "" {
				noBid(t, srv, body)
				return
			}
			b := onlyBid(t, srv, body)
			assert.Equal(t, tt.cid, b.CID)
			assert.Equal(t, tt.dealid, b.DealID)
			assert.Equal(t, tt.price, b.Price.String())
			assert.Equal(t, 1, b.MType)
		})
	}
}

// TestDealBooksAndRecords: a deal's bid is counted under its deal
// (/admin/stats?deal=), and its bid and win records carry it.
func TestDealBooksAndRecords(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, mediaCampaigns...), serverOptions{events: &events.Config{Window: time.Hour}})
	b := onlyBid(t, srv, oneImp(`{"id":"1","banner":{"w":300,"h":250},"pmp":{"private_auction":1,"deals":[{"id":"D-1","bidfloor":2,"at":3}]}}`))
	u, err := url.Parse(b.NURL)
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+u.Query().Get("bidid")+"&price=1.5").Code)
	w := get(srv.admin, "/admin/stats?campaign=c-deal&deal=D-1&day=2026-11-04")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.JSONEq(t, `{"campaign":"c-deal","day":"2026-11-04","deal":"D-1","bids":1,"wins":1,"spend_micros":1500000}`, w.Body.String())
	recs := logged(t, srv.log)
	assert.Equal(t, "D-1", ofType(recs, "bid")[0]["deal"])
	assert.EqualValues(t, 2_000_000, ofType(recs, "bid")[0]["price_micros"], "the fixed price")
	assert.Equal(t, "D-1", ofType(recs, "win")[0]["deal"])
}

// TestMixedImpressions: a request of a banner, a video and a native
// impression gets each decided on its own kind.
func TestMixedImpressions(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, mediaCampaigns...), serverOptions{})
	body := `{"id":"req-1","imp":[{"id":"b","banner":{"w":300,"h":250}},` +
		`{"id":"v","video":{"mimes":["video/mp4"]}},{"id":"n","native":{"request":` + nativeRequest + `}},` +
		`{"id":"a","audio":{"mimes":["audio/mp4"]}}],"site":{"domain":"pub.example"}}`
	w := postOpenRTB(srv.public, body)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var resp struct {
		SeatBid []struct {
			Bid []bidResponseBid `json:"bid"`
		} `json:"seatbid"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	got := map[string]int{}
	for _, b := range resp.SeatBid[0].Bid {
		got[b.ImpID] = b.MType
	}
	assert.Equal(t, map[string]int{"b": 1, "v": 2, "n": 4}, got, "one bid per impression of its kind; none for audio")
}

// TestVideoTrackers: a VAST document's trackers are dspd's, each recorded
// once.
func TestVideoTrackers(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, mediaCampaigns...), serverOptions{events: &events.Config{Window: time.Hour}})
	b := onlyBid(t, srv, oneImp(`{"id":"v1","video":{"mimes":["video/mp4"]}}`))
	v := parseVAST(t, b.Adm)
	lin := v.Ad.InLine.Creatives.Creative[0].Linear
	path := func(u string) string {
		p, err := url.Parse(u)
		require.NoError(t, err)
		return p.RequestURI()
	}
	for range 2 {
		for _, tr := range lin.Tracking {
			assert.Equal(t, http.StatusNoContent, get(srv.public, path(tr.URL)).Code)
		}
		assert.Equal(t, http.StatusOK, get(srv.public, path(v.Ad.InLine.Impression)).Code)
		errURL := strings.Replace(v.Ad.InLine.Error, "[ERRORCODE]", "405", 1)
		assert.Equal(t, http.StatusNoContent, get(srv.public, path(errURL)).Code)
	}
	recs := logged(t, srv.log)
	for _, typ := range []string{"impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "error"} {
		assert.Len(t, ofType(recs, typ), 1, typ)
	}
	assert.Equal(t, "405", ofType(recs, "error")[0]["reason"])
}

// TestMediaAllocations: video, native and deal requests allocate no more
// than a banner request does (the pooled buffers aside).
func TestMediaAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	path := writeCampaigns(t, mediaCampaigns...)
	srv := benchServerWith(t, func(c *Config) { c.CampaignsPath = path })
	h := nethttp.EndpointHandler(srv, EndpointOpenRTB)
	measure := func(body string) float64 {
		r := httptest.NewRequest(http.MethodPost, OpenRTBPath, nil)
		r.Header.Set("Content-Type", JSONMediaType)
		reader := bytes.NewReader(nil)
		r.Body = io.NopCloser(reader)
		w := &discardWriter{h: http.Header{}}
		raw := []byte(body)
		run := func() {
			w.code = http.StatusOK
			reader.Reset(raw)
			r.ContentLength = int64(len(raw))
			h(w, r)
		}
		run()
		require.Equal(t, http.StatusOK, w.code, body)
		return testing.AllocsPerRun(1000, run)
	}
	banner := measure(oneImp(`{"id":"1","banner":{"w":300,"h":250},"bidfloor":0.5}`))
	for name, body := range mediaBenchRequests() {
		got := measure(body)
		t.Logf("%s: %.1f allocations per request (a banner: %.1f)", name, got, banner)
		assert.LessOrEqual(t, got, banner, name)
	}
}
