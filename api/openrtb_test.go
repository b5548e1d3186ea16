package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/state/memory"
)

func openrtbServer(t *testing.T) *testServer {
	t.Helper()
	return newTestServer(t, writeCampaigns(t, openrtbCampaigns...))
}

// openrtbError decodes a JSON error answer.
func openrtbError(t *testing.T, w *httptest.ResponseRecorder) (code, field string) {
	t.Helper()
	e := decodeError(t, w)
	return e.Error, e.Field
}

func TestOpenRTBHTTPErrors(t *testing.T) {
	srv := openrtbServer(t)
	valid := []byte(ortbBody("", ""))
	big := []byte(ortbBody(`"ext":"`+strings.Repeat("x", MaxBodyBytes)+`"`, ""))
	bomb := gzipBytes(t, []byte(ortbBody(`"ext":"`+strings.Repeat(" ", 1<<20)+`"`, "")))
	require.Less(t, len(bomb), MaxBodyBytes, "a small body that inflates past the limit")
	tests := []struct {
		name, method, ct, ce string
		body                 []byte
		status               int
		code                 string
	}{
		{"GET", "GET", "application/json", "", valid, 405, "method_not_allowed"},
		{"method before content type", "PUT", "text/plain", "", valid, 405, "method_not_allowed"},
		{"text content type", "POST", "text/plain", "", valid, 415, "unsupported_media_type"},
		{"form content type", "POST", FormMediaType, "", valid, 415, "unsupported_media_type"},
		{"other parameter", "POST", "application/json; version=2.6", "", valid, 415, "unsupported_media_type"},
		{"content type before size", "POST", "text/json", "", big, 415, "unsupported_media_type"},
		{"brotli", "POST", "application/json", "br", valid, 415, "unsupported_media_type"},
		{"two codings", "POST", "application/json", "gzip, gzip", valid, 415, "unsupported_media_type"},
		{"too large", "POST", "application/json", "", big, 413, "body_too_large"},
		{"too large compressed", "POST", "application/json", "gzip", append(gzipBytes(t, valid), big...), 413, "body_too_large"},
		{"zip bomb", "POST", "application/json", "gzip", bomb, 413, "body_too_large"},
		{"size before JSON", "POST", "application/json", "", append(big, '{'), 413, "body_too_large"},
		{"not gzip", "POST", "application/json", "gzip", valid, 400, "bad_body"},
		{"truncated gzip", "POST", "application/json", "gzip", gzipBytes(t, valid)[:30], 400, "bad_body"},
		{"empty gzip", "POST", "application/json", "gzip", nil, 400, "bad_body"},
		{"empty", "POST", "application/json", "", nil, 400, "bad_body"},
		{"array", "POST", "application/json", "", []byte(`[` + string(valid) + `]`), 400, "bad_body"},
		{"string", "POST", "application/json", "", []byte(`"x"`), 400, "bad_body"},
		{"null", "POST", "application/json", "", []byte(`null`), 400, "bad_body"},
		{"truncated", "POST", "application/json", "", valid[:len(valid)-1], 400, "bad_body"},
		{"truncated after a key", "POST", "application/json", "", []byte(`{"id":"a","":`), 400, "bad_body"},
		{"trailing garbage", "POST", "application/json", "", append(valid, '}'), 400, "bad_body"},
		{"two objects", "POST", "application/json", "", append(valid, valid...), 400, "bad_body"},
		{"trailing comma", "POST", "application/json", "", []byte(`{"id":"a",}`), 400, "bad_body"},
		{"JSON before fields", "POST", "application/json", "", []byte(`{"id":7,"imp":[}`), 400, "bad_body"},
		{"bad escape", "POST", "application/json", "", []byte(`{"id":"\x","imp":[]}`), 400, "bad_body"},
		{"control character", "POST", "application/json", "", []byte("{\"id\":\"a\x01\"}"), 400, "bad_body"},
		{"bad literal in ext", "POST", "application/json", "", []byte(ortbBody(`"ext":{"a":[1,tru]}`, "")), 400, "bad_body"},
		{"bad number", "POST", "application/json", "", []byte(ortbBody(`"tmax":1.2.3`, "")), 400, "bad_body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, OpenRTBPath, bytes.NewReader(tt.body))
			if tt.ct != "" {
				r.Header.Set("Content-Type", tt.ct)
			}
			if tt.ce != "" {
				r.Header.Set("Content-Encoding", tt.ce)
			}
			w := httptest.NewRecorder()
			srv.public.ServeHTTP(w, r)
			require.Equal(t, tt.status, w.Code, w.Body.String())
			code, field := openrtbError(t, w)
			assert.Equal(t, tt.code, code)
			assert.Empty(t, field)
			if tt.status == 405 {
				assert.Equal(t, "POST", w.Header().Get("Allow"))
			}
		})
	}
	assert.Zero(t, srv.bids.Len(), "nothing is recorded for a rejected request")
}

func TestOpenRTBContentHeaders(t *testing.T) {
	srv := openrtbServer(t)
	body := []byte(ortbBody("", ""))
	for _, ct := range []string{"application/json", "Application/JSON", "application/json; charset=utf-8",
		" application/json ;charset=UTF-8; ", "application/json;charset=\"utf-8\""} {
		w := postOpenRTBTo(srv.public, OpenRTBPath, body, "Content-Type", ct)
		assert.Equal(t, http.StatusOK, w.Code, "%q: %s", ct, w.Body.String())
	}
	// Many adapters send no Content-Type: the body is read as JSON.
	noCT := httptest.NewRequest(http.MethodPost, OpenRTBPath, bytes.NewReader(body))
	require.Empty(t, noCT.Header.Values("Content-Type"))
	w := httptest.NewRecorder()
	srv.public.ServeHTTP(w, noCT)
	assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
	w = postOpenRTBTo(srv.public, OpenRTBPath, gzipBytes(t, body), "Content-Type", "", "Content-Encoding", "gzip")
	assert.Equal(t, http.StatusOK, w.Code, "an empty Content-Type is no Content-Type: %s", w.Body.String())
	for _, ce := range []string{"", "identity", "IDENTITY"} {
		w := postOpenRTBTo(srv.public, OpenRTBPath, body, "Content-Encoding", ce)
		assert.Equal(t, http.StatusOK, w.Code, "%q: %s", ce, w.Body.String())
	}
	gz := gzipBytes(t, body)
	for _, ce := range []string{"gzip", "GZIP", "x-gzip", " gzip "} {
		w := postOpenRTBTo(srv.public, OpenRTBPath, gz, "Content-Encoding", ce)
		assert.Equal(t, http.StatusOK, w.Code, "%q: %s", ce, w.Body.String())
	}
	// Two gzip members inflate to their concatenation: here two documents.
	w = postOpenRTBTo(srv.public, OpenRTBPath, append(gzipBytes(t, body), gz...), "Content-Encoding", "gzip")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	// A body inflating to exactly the limit is accepted.
	exact := []byte(ortbBody(`"ext":"`, ""))
	exact = []byte(ortbBody(`"ext":"`+strings.Repeat("x", MaxBodyBytes-len(exact)-1)+`"`, ""))
	require.Len(t, exact, MaxBodyBytes)
	w = postOpenRTBTo(srv.public, OpenRTBPath, gzipBytes(t, exact), "Content-Encoding", "gzip")
	assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
	w = postOpenRTBTo(srv.public, OpenRTBPath, exact)
	assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
}

func TestOpenRTBVersionEcho(t *testing.T) {
	srv := openrtbServer(t)
	for _, tt := range []struct {
		name, target, body string
		status             int
	}{
		{"bid", OpenRTBPath, ortbBody("", ""), 200},
		{"no bid", OpenRTBPath, ortbBody(`"cur":["EUR"]`, ""), 204},
		{"nbr", OpenRTBPath + "?nbr=1", ortbBody(`"cur":["EUR"]`, ""), 200},
		{"error", OpenRTBPath, `{}`, 400},
	} {
		w := postOpenRTBTo(srv.public, tt.target, []byte(tt.body), "X-Openrtb-Version", "2.6")
		assert.Equal(t, tt.status, w.Code, tt.name)
		assert.Equal(t, "2.6", w.Header().Get("X-Openrtb-Version"), tt.name)
	}
	r := httptest.NewRequest(http.MethodGet, OpenRTBPath, nil)
	r.Header.Set("x-openrtb-version", "2.5")
	w := httptest.NewRecorder()
	srv.public.ServeHTTP(w, r)
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Equal(t, "2.5", w.Header().Get("X-Openrtb-Version"))
	for _, v := range []string{"", "2 6", strings.Repeat("2", 17)} {
		w := postOpenRTB(srv.public, ortbBody("", ""), "X-Openrtb-Version", v)
		assert.Empty(t, w.Header().Values("X-Openrtb-Version"), "%q is not echoed", v)
	}
	w = postOpenRTB(srv.public, ortbBody("", ""))
	assert.Empty(t, w.Header().Values("X-Openrtb-Version"))
}

func TestOpenRTBFieldErrors(t *testing.T) {
	srv := openrtbServer(t)
	tests := []struct {
		name, body, code, field string
	}{
		{"missing id", `{"imp":[{"id":"1"}]}`, "missing_field", "id"},
		{"empty id", `{"id":"","imp":[{"id":"1"}]}`, "missing_field", "id"},
		{"null id", `{"id":null,"imp":[{"id":"1"}]}`, "missing_field", "id"},
		{"id number", `{"id":1,"imp":[{"id":"1"}]}`, "invalid_field", "id"},
		{"id too long", `{"id":"` + strings.Repeat("a", 65) + `","imp":[{"id":"1"}]}`, "invalid_field", "id"},
		{"id with a space", `{"id":"a b","imp":[{"id":"1"}]}`, "invalid_field", "id"},
		{"id with an escaped control", `{"id":"a\u0001","imp":[{"id":"1"}]}`, "invalid_field", "id"},
		{"missing imp", `{"id":"r"}`, "missing_field", "imp"},
		{"empty imp", `{"id":"r","imp":[]}`, "missing_field", "imp"},
		{"imp object", `{"id":"r","imp":{"id":"1"}}`, "invalid_field", "imp"},
		{"imp element string", `{"id":"r","imp":["1"]}`, "invalid_field", "imp[0]"},
		{"imp element null", `{"id":"r","imp":[null]}`, "invalid_field", "imp[0]"},
		{"missing imp id", `{"id":"r","imp":[{"banner":{"w":300,"h":250}}]}`, "missing_field", "imp[0].id"},
		{"second imp id", `{"id":"r","imp":[{"id":"1"},{"id":""}]}`, "missing_field", "imp[1].id"},
		{"duplicate imp id", `{"id":"r","imp":[{"id":"1"},{"id":"2"},{"id":"1"}]}`, "invalid_field", "imp[2].id"},
		{"banner string", ortbBody("", `"banner":"300x250"`), "invalid_field", "imp[0].banner"},
		{"w string", ortbBody("", `"banner":{"w":"300","h":250}`), "invalid_field", "imp[0].banner.w"},
		{"w zero", ortbBody("", `"banner":{"w":0,"h":250}`), "invalid_field", "imp[0].banner.w"},
		{"h too big", ortbBody("", `"banner":{"w":300,"h":10001}`), "invalid_field", "imp[0].banner.h"},
		{"w fraction", ortbBody("", `"banner":{"w":300.5,"h":250}`), "invalid_field", "imp[0].banner.w"},
		{"w exponent", ortbBody("", `"banner":{"w":3e2,"h":250}`), "invalid_field", "imp[0].banner.w"},
		{"w negative", ortbBody("", `"banner":{"w":-300,"h":250}`), "invalid_field", "imp[0].banner.w"},
		{"w without h", ortbBody("", `"banner":{"w":300}`), "missing_field", "imp[0].banner.h"},
		{"h without w", ortbBody("", `"banner":{"h":250}`), "missing_field", "imp[0].banner.w"},
		{"format object", ortbBody("", `"banner":{"format":{"w":300,"h":250}}`), "invalid_field", "imp[0].banner.format"},
		{"format entry", ortbBody("", `"banner":{"format":[{"w":300,"h":250},3]}`), "invalid_field", "imp[0].banner.format[1]"},
		{"format w", ortbBody("", `"banner":{"format":[{"w":300,"h":250},{"w":true,"h":250}]}`), "invalid_field", "imp[0].banner.format[1].w"},
		{"format without w", ortbBody("", `"banner":{"format":[{"h":250}]}`), "missing_field", "imp[0].banner.format[0].w"},
		{"format without h", ortbBody("", `"banner":{"format":[{"w":300,"wratio":1}]}`), "missing_field", "imp[0].banner.format[0].h"},
		{"bidfloor negative", ortbBody("", `"bidfloor":-1`), "invalid_field", "imp[0].bidfloor"},
		{"bidfloor string", ortbBody("", `"bidfloor":"1.5"`), "invalid_field", "imp[0].bidfloor"},
		{"bidfloorcur", ortbBody("", `"bidfloorcur":"EURO"`), "invalid_field", "imp[0].bidfloorcur"},
		{"bidfloorcur digits", ortbBody("", `"bidfloorcur":"E1R"`), "invalid_field", "imp[0].bidfloorcur"},
		{"cur string", ortbBody(`"cur":"USD"`, ""), "invalid_field", "cur"},
		{"cur item", ortbBody(`"cur":["USD","US"]`, ""), "invalid_field", "cur[1]"},
		{"bidfloor negative tiny", ortbBody("", `"bidfloor":-1e-9`), "invalid_field", "imp[0].bidfloor"},
		{"bidfloor bool", ortbBody("", `"bidfloor":true`), "invalid_field", "imp[0].bidfloor"},
		{"bidfloorcur number", ortbBody("", `"bidfloorcur":978`), "invalid_field", "imp[0].bidfloorcur"},
		{"first error in body order", `{"imp":[{"id":"1","banner":{"w":"x","h":250}}],"cur":"USD"}`, "invalid_field", "imp[0].banner.w"},
		{"missing id after other errors", `{"cur":["US"],"imp":[{"id":"1"}]}`, "invalid_field", "cur[0]"},
		{"a bad optional field does not hide a required one", `{"id":"r","test":2,"imp":[{"id":"1","banner":{"w":0,"h":250}}]}`, "invalid_field", "imp[0].banner.w"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := postOpenRTB(srv.public, tt.body)
			require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
			code, field := openrtbError(t, w)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.field, field)
		})
	}
	assert.Zero(t, srv.bids.Len(), "nothing is recorded for a rejected request")
}

// TestOpenRTBAccepts lists requests that are valid, if unusual.
func TestOpenRTBAccepts(t *testing.T) {
	srv := openrtbServer(t)
	for _, tt := range []struct{ name, body string }{
		{"pretty printed", "{\n  \"id\" : \"r\" ,\r\n\t\"imp\" : [ { \"id\" : \"1\" , \"banner\" : { \"w\" : 300 , \"h\" : 250 } } ]\n}\n"},
		{"unknown members", ortbBody(`"at":1,"source":{"tid":"x","ext":{"schain":{"nodes":[{"asi":"a"}]}}},"regs":{"coppa":0},"wlang":["en"]`, `"video":{"w":640},"ext":{"a":[1,2.5e3,null,true]}`)},
		{"nulls", ortbBody(`"site":null,"app":{"bundle":null,"cat":null},"device":{"geo":null},"user":null,"tmax":null,"bcat":null,"cur":null`, `"bidfloor":null,"secure":null,"tagid":null`)},
		{"empty strings", ortbBody(`"site":{"domain":"","cat":["",""]},"user":{"id":""},"bcat":[" "]`, `"bidfloorcur":""`)},
		{"empty key", `{"":{"":[]},"id":"r","imp":[{"":1,"id":"1","banner":{"w":300,"h":250}}]}`},
		{"escapes", `{"id":"r\u002d1","imp":[{"id":"\u0031","banner":{"w":300,"h":250}}],"site":{"domain":"news\u002eexample","page":"https:\/\/news.example\/a?b=\"c\""}}`},
		{"unknown country and region", ortbBody(`"device":{"geo":{"country":"XXX","region":"California","city":"Los Angeles"}}`, "")},
		{"free-text os", ortbBody(`"device":{"os":"Mac OS X","devicetype":8}`, "")},
		{"negative devicetype", ortbBody(`"device":{"devicetype":-1}`, "")},
		{"long user agent", ortbBody(`"device":{"ua":"`+strings.Repeat("Mozilla ", 200)+`"}`, "")},
		{"repeated key", ortbBody(`"tmax":50,"tmax":100`, "")},
		{"flexible format skipped", ortbBody("", `"banner":{"w":300,"h":250,"format":[{"wratio":16,"hratio":9,"wmin":300}]}`)},
		{"imp without banner", `{"id":"r","imp":[{"id":"1","video":{"w":640,"h":480}},{"id":"2","banner":{"w":300,"h":250}}]}`},
		{"max imps", `{"id":"r","imp":[` + impList(maxImps) + `]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := postOpenRTB(srv.public, tt.body)
			require.Contains(t, []int{http.StatusOK, http.StatusNoContent}, w.Code, w.Body.String())
		})
	}
}

// TestOpenRTBMultiSize: a banner offering several sizes takes the highest
// price among them, the first size on a tie, and the furthest no-bid stage
// when none bids; the sizes tried but not taken leave no bid record and no
// count in the books.
func TestOpenRTBMultiSize(t *testing.T) {
	tests := []struct {
		name, banner, imp, top string
		campaign               string
		w, h                   int
		reason                 string
	}{
		{name: "highest price", banner: `"format":[{"w":300,"h":250},{"w":728,"h":90}]`, campaign: "c-a", w: 728, h: 90},
		{name: "highest price, w/h first", banner: `"w":728,"h":90,"format":[{"w":300,"h":250}]`, campaign: "c-a", w: 728, h: 90},
		{name: "tie: the first size", banner: `"format":[{"w":160,"h":600},{"w":300,"h":250}]`, campaign: "c-c", w: 160, h: 600},
		{name: "tie: w/h before format", banner: `"w":300,"h":250,"format":[{"w":160,"h":600}]`, campaign: "c-b", w: 300, h: 250},
		{name: "one size bids", banner: `"format":[{"w":1,"h":1},{"w":300,"h":250}]`, campaign: "c-b", w: 300, h: 250},
		{name: "no size bids: the furthest stage", banner: `"format":[{"w":1,"h":1},{"w":320,"h":50}]`,
			top: `"site":{"domain":"cap.example"}`, reason: "freq_cap"},
		{name: "no size bids: below floor over no match", banner: `"format":[{"w":1,"h":1},{"w":300,"h":250}],"w":2,"h":2`,
			imp: `"bidfloor":100`, reason: "below_floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openrtbServer(t)
			imp := `"banner":{` + tt.banner + `}` + prefixComma(tt.imp)
			w := postOpenRTB(srv.public, `{"id":"r","imp":[{"id":"1",`+imp+`}]`+prefixComma(tt.top)+`}`)
			got := outcomeOf(t, w.Code, w.Header(), w.Body.Bytes())
			if tt.reason != "" {
				assert.Equal(t, outcome{Reason: tt.reason}, got)
				assert.Zero(t, srv.bids.Len(), "no record for the sizes tried")
				return
			}
			assert.Equal(t, tt.campaign, got.Campaign)
			assert.Equal(t, []int{tt.w, tt.h}, []int{got.W, got.H})
			assert.Equal(t, 1, srv.bids.Len(), "one record: the sizes tried but not taken leave none")
			for _, c := range []string{"c-a", "c-b", "c-c"} {
				st := stats(t, srv, c, "2026-11-04")
				want := 0.0
				if c == tt.campaign {
					want = 1
				}
				assert.Equal(t, want, st["bids"], "bids counted for %s", c)
			}
		})
	}
}

func prefixComma(s string) string {
	if s == "" {
		return ""
	}
	return "," + s
}

// multiImpRequest has four impressions: the first offers two sizes (c-a's
// 728x90 outbids c-b's 300x250), the second is video only, the third fits
// no campaign, the fourth ties c-b and c-c (the first size, c-b's, wins).
const multiImpRequest = `{"id":"multi-1","imp":[
 {"id":"1","banner":{"format":[{"w":300,"h":250},{"w":728,"h":90}]},"tagid":"top"},
 {"id":"2","video":{"mimes":["video/mp4"],"w":640,"h":480}},
 {"id":"3","banner":{"w":1,"h":1}},
 {"id":"imp-4","banner":{"w":300,"h":250,"format":[{"w":160,"h":600}]},"bidfloor":1.5,"bidfloorcur":"USD"}],
 "site":{"domain":"news.example","cat":["IAB12"],"page":"https://news.example/a"},
 "device":{"ua":"Mozilla/5.0","ip":"192.0.2.1","geo":{"country":"USA","region":"CA"},"os":"ios","devicetype":4},
 "user":{"id":"u-1"},"at":1,"tmax":120,"cur":["USD"],"ext":{"x":{"y":[1,2,{"z":null}]}}}`

func TestOpenRTBMultiImpression(t *testing.T) {
	srv := openrtbServer(t)
	w := postOpenRTB(srv.public, multiImpRequest, "X-Openrtb-Version", "2.6")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	assert.Equal(t, "2.6", w.Header().Get("X-Openrtb-Version"))
	assertGolden(t, "openrtb-multi.json", w.Body.Bytes())

	var resp bidResponse
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	assert.Equal(t, "multi-1", resp.ID)
	assert.Equal(t, "USD", resp.Cur)
	require.Len(t, resp.SeatBid, 1)
	assert.Equal(t, "dsp", resp.SeatBid[0].Seat)
	bids := resp.SeatBid[0].Bid
	require.Len(t, bids, 2)
	assert.Equal(t, resp.BidID, bids[0].ID, "the response's bidid is the first bid's")
	assert.NotEqual(t, bids[0].ID, bids[1].ID, "each bid has its own id")
	assert.Equal(t, []string{"1", "imp-4"}, []string{bids[0].ImpID, bids[1].ImpID})
	assert.Equal(t, []string{"c-a", "c-b"}, []string{bids[0].CID, bids[1].CID})
	assert.Equal(t, 2, srv.bids.Len(), "one record per bid, none for the sizes not taken")
	for _, b := range bids {
		assert.Equal(t, "http://localhost:9090/dsp/win?bidid="+b.ID+"&price=${AUCTION_PRICE}", b.NURL)
		assert.Equal(t, b.NURL+"&billing=1", b.BURL)
		assert.Equal(t, b.AdID, b.CrID)
	}

	// The same accounting as recbid: whichever of nurl and burl comes first
	// is recorded, the other is a duplicate.
	notice := func(u, price string) *httptest.ResponseRecorder {
		return get(srv.public, strings.TrimPrefix(strings.ReplaceAll(u, "${AUCTION_PRICE}", price), "http://localhost:9090"))
	}
	w = notice(bids[0].BURL, "2.5")
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	assert.Empty(t, w.Header().Get("X-Win-Duplicate"), "billing=1 is ignored: the first notice is recorded")
	w = notice(bids[0].NURL, "2.5")
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "1", w.Header().Get("X-Win-Duplicate"))
	w = notice(bids[1].NURL, "1.75")
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Empty(t, w.Header().Get("X-Win-Duplicate"))
	w = notice(bids[1].BURL, "1.75")
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "1", w.Header().Get("X-Win-Duplicate"))

	day := testNow.Format(time.DateOnly) // OpenRTB requests happen at the server clock
	assert.Equal(t, map[string]any{"campaign": "c-a", "day": day, "bids": 1.0, "wins": 1.0, "spend_micros": 2_500_000.0},
		stats(t, srv, "c-a", day))
	assert.Equal(t, map[string]any{"campaign": "c-b", "day": day, "bids": 1.0, "wins": 1.0, "spend_micros": 1_750_000.0},
		stats(t, srv, "c-b", day))
	assert.Equal(t, 0.0, stats(t, srv, "c-c", day)["bids"], "the size not taken is not counted")
}

// failingBids is a bid store whose Save always fails.
type failingBids struct{ *memory.BidStore }

func (failingBids) Save(context.Context, bidder.BidRecord, time.Time) (bidder.BidID, error) {
	return bidder.BidID{}, errors.New("bid store down")
}

// TestOpenRTBNoBidReasons checks every no-bid reason: 204 with
// X-Nobid-Reason, or, asked for with ?nbr=1 or X-Openrtb-Nbr: 1, a 200
// {"id":…,"nbr":N} (golden files openrtb-nbr-REASON.json).
func TestOpenRTBNoBidReasons(t *testing.T) {
	tests := []struct {
		reason, top, imp, banner string
		nbr                      int
	}{
		{reason: "currency", imp: `"bidfloorcur":"EUR"`, nbr: 2},
		{reason: "no_match", banner: `"w":1,"h":1`, nbr: 0},
		{reason: "below_floor", imp: `"bidfloor":3.000001`, nbr: 0},
		{reason: "freq_cap", banner: `"w":320,"h":50`, top: `"site":{"domain":"cap.example"}`, nbr: 9},
		{reason: "budget", banner: `"w":320,"h":50`, top: `"site":{"domain":"broke.example"}`, nbr: 10},
		{reason: "timeout", top: `"tmax":5`, nbr: 15},
		{reason: "state_unavailable", nbr: 1},
	}
	path := writeCampaigns(t, openrtbCampaigns...)
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			srv := newTestServer(t, path)
			if tt.reason == "state_unavailable" {
				srv = newFailingServer(t, path)
			}
			banner := tt.banner
			if banner == "" {
				banner = `"w":300,"h":250`
			}
			body := `{"id":"nbr-` + tt.reason + `","imp":[{"id":"1","banner":{` + banner + `}` + prefixComma(tt.imp) + `}]` +
				prefixComma(tt.top) + `}`

			w := postOpenRTB(srv.public, body)
			require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
			assert.Equal(t, tt.reason, w.Header().Get("X-Nobid-Reason"))
			assert.Empty(t, w.Body.Bytes())

			for _, asked := range []*httptest.ResponseRecorder{
				postOpenRTBTo(srv.public, OpenRTBPath+"?nbr=1", []byte(body)),
				postOpenRTBTo(srv.public, OpenRTBPath+"?x=y&nbr=1", []byte(body)),
				postOpenRTB(srv.public, body, "X-Openrtb-Nbr", "1"),
			} {
				require.Equal(t, http.StatusOK, asked.Code, asked.Body.String())
				assert.Equal(t, "application/json", asked.Header().Get("Content-Type"))
				assert.Equal(t, tt.reason, asked.Header().Get("X-Nobid-Reason"))
				assert.Equal(t, `{"id":"nbr-`+tt.reason+`","nbr":`+strconv.Itoa(tt.nbr)+`}`, asked.Body.String())
			}
			assertGolden(t, "openrtb-nbr-"+tt.reason+".json",
				postOpenRTBTo(srv.public, OpenRTBPath+"?nbr=1", []byte(body)).Body.Bytes())
			for _, notAsked := range []*httptest.ResponseRecorder{
				postOpenRTBTo(srv.public, OpenRTBPath+"?nbr=0", []byte(body)),
				postOpenRTBTo(srv.public, OpenRTBPath+"?nbr=10", []byte(body)),
				postOpenRTB(srv.public, body, "X-Openrtb-Nbr", "0"),
			} {
				assert.Equal(t, http.StatusNoContent, notAsked.Code)
			}
		})
	}
	for _, r := range bidder.NoBidReasons() {
		assert.Contains(t, []int{0, 1, 2, 9, 10, 15}, nbrCodes[r], "%s has a code", r)
	}
}

func newFailingServer(t *testing.T, path string) *testServer {
	t.Helper()
	return buildTestServer(t, path, serverOptions{
		wrap: func(b bidder.BidStore) bidder.BidStore { return failingBids{b.(*memory.BidStore)} }})
}

// TestOpenRTBPostJSON: testdata/openrtb/post.json wins the same bid as
// testdata/post.data, and its answer is recbid's with an mtype before the
// nurl and a burl after it.
func TestOpenRTBPostJSON(t *testing.T) {
	srv, clock := newClockServer(t, testdataCampaigns)
	clock.Store(1793780833412) // post.data's ts
	form := postForm(srv.public, readFile(t, "../testdata/post.data"))
	require.Equal(t, http.StatusOK, form.Code)
	post := []byte(readFile(t, "../testdata/openrtb/post.json"))
	for _, gz := range []bool{false, true} {
		var w *httptest.ResponseRecorder
		if gz {
			w = postOpenRTBTo(srv.public, OpenRTBPath, gzipBytes(t, post), "Content-Encoding", "gzip")
		} else {
			w = postOpenRTBTo(srv.public, OpenRTBPath, post)
		}
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		ids := regexp.MustCompile(`[0-9a-f]{32}`)
		burl := regexp.MustCompile(`,"burl":"[^"]*"`)
		want := ids.ReplaceAllString(form.Body.String(), "B")
		got := ids.ReplaceAllString(burl.ReplaceAllString(strings.Replace(w.Body.String(), `,"mtype":1`, "", 1), ""), "B")
		assert.Equal(t, want, got)
		assert.Contains(t, w.Body.String(), `"h":50,"mtype":1,"nurl":"http://localhost:9090/dsp/win?bidid=`)
		assert.Regexp(t, `,"burl":"http://localhost:9090/dsp/win\?bidid=[0-9a-f]{32}&price=\$\{AUCTION_PRICE\}&billing=1","adm":`, w.Body.String())
	}
}

// TestOpenRTBKeyOrder pins the documented key order of a bid.
func TestOpenRTBKeyOrder(t *testing.T) {
	srv := openrtbServer(t)
	w := postOpenRTB(srv.public, ortbBody("", ""))
	require.Equal(t, http.StatusOK, w.Code)
	keys := regexp.MustCompile(`"([a-z]+)":`).FindAllStringSubmatch(w.Body.String(), -1)
	var order []string
	for _, k := range keys {
		order = append(order, k[1])
	}
	assert.Equal(t, []string{"id", "bidid", "cur", "seatbid", "seat", "bid", "id", "impid", "price", "adid", "cid",
		"crid", "adomain", "cat", "w", "h", "mtype", "nurl", "burl", "adm"}, order)
}

func TestOpenRTBMetrics(t *testing.T) {
	srv := openrtbServer(t)
	postOpenRTB(srv.public, ortbBody("", ""))
	postOpenRTB(srv.public, multiImpRequest)
	postOpenRTB(srv.public, ortbBody(`"cur":["EUR"]`, ""))
	postOpenRTB(srv.public, `{}`)
	postOpenRTB(srv.public, `{`)
	w := get(srv.admin, "/metrics")
	require.Equal(t, http.StatusOK, w.Code)
	for _, line := range []string{
		`dspd_openrtb_requests_total{exchange="default",outcome="bid"} 2`,
		`dspd_openrtb_requests_total{exchange="default",outcome="nobid"} 1`,
		`dspd_openrtb_requests_total{exchange="default",outcome="rejected"} 2`,
		`dspd_openrtb_impressions_total{outcome="bid"} 3`,
		`dspd_openrtb_impressions_total{outcome="nobid"} 3`,
		`dspd_nobid_total{exchange="default",reason="currency"} 1`,
		`dspd_http_errors_total{code="missing_field",endpoint="openrtb"} 1`,
		`dspd_http_errors_total{code="bad_body",endpoint="openrtb"} 1`,
		`dspd_recbid_requests_total{exchange="default",outcome="bid"} 0`,
	} {
		assert.Contains(t, w.Body.String(), line+"\n")
	}
}

// TestOpenRTBAllocations bounds what one request allocates: at most the
// user id the bid record keeps (as recbid), and for gzip compress/flate's
// Huffman tables of the block; the walk itself allocates nothing, keys
// included (json-iterator, before jsoncodec.Scanner, copied each object key
// of two bytes or more, the first bound below).
func TestOpenRTBAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	srv := benchServerT(t)
	post := []byte(readFile(t, "../testdata/openrtb/post.json"))
	// The same request with bad used fields, treated as absent: noting them
	// allocates nothing.
	malformed := bytes.Replace(post, []byte(`{"id":`), []byte(`{"test":2,"tmax":"fast","bcat":[7,{"x":1}],"id":`), 1)
	require.NotEqual(t, post, malformed)
	for _, tt := range []struct {
		name  string
		text  []byte
		gzip  bool
		extra float64 // the winner's user id, kept in its bid record (as recbid); inflating
	}{{"plain", post, false, 1}, {"gzip", post, true, 4}, {"malformed optional fields", malformed, false, 1}} {
		keys := float64(len(regexp.MustCompile(`"[a-z][a-z]+":`).FindAll(tt.text, -1))) // keys of two bytes or more
		body := tt.text
		r := httptest.NewRequest(http.MethodPost, OpenRTBPath, nil)
		r.Header.Set("Content-Type", JSONMediaType)
		if tt.gzip {
			body = gzipBytes(t, tt.text)
			r.Header.Set("Content-Encoding", "gzip")
		}
		reader := bytes.NewReader(nil)
		r.Body = io.NopCloser(reader)
		w := &discardWriter{h: http.Header{}}
		handler := nethttp.EndpointHandler(srv, EndpointOpenRTB)
		run := func() {
			w.code = http.StatusOK // a 200 is written without WriteHeader
			reader.Reset(body)
			r.ContentLength = int64(len(body))
			handler(w, r)
		}
		run()
		require.Equal(t, http.StatusOK, w.code)
		allocs := testing.AllocsPerRun(2000, run)
		t.Logf("%s: %.0f allocations per request, %.0f object keys", tt.name, allocs, keys)
		assert.LessOrEqual(t, allocs, keys+tt.extra+1, tt.name) // +1: the bid store's growth, amortized
		assert.LessOrEqual(t, allocs, tt.extra+1, "%s: no allocation per key", tt.name)
	}
}

// TestOpenRTBRequestReason: without any bid, the request's reason is the
// furthest stage any impression reached.
func TestOpenRTBRequestReason(t *testing.T) {
	srv := openrtbServer(t)
	for _, tt := range []struct{ body, reason string }{
		{`{"id":"r","imp":[{"id":"1","banner":{"w":1,"h":1}},{"id":"2","banner":{"w":300,"h":250},"bidfloor":99}]}`, "below_floor"},
		{`{"id":"r","imp":[{"id":"1","banner":{"w":320,"h":50}},{"id":"2","video":{}}],"site":{"domain":"broke.example"}}`, "budget"},
		{`{"id":"r","imp":[{"id":"1","video":{}},{"id":"2","native":{}}]}`, "no_match"},
		{`{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"cur":["EUR","GBP"]}`, "currency"},
		{`{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"bidfloorcur":"eur"},{"id":"2","banner":{"w":1,"h":1}}]}`, "no_match"},
	} {
		w := postOpenRTB(srv.public, tt.body)
		require.Equal(t, http.StatusNoContent, w.Code, "%s: %s", tt.body, w.Body.String())
		assert.Equal(t, tt.reason, w.Header().Get("X-Nobid-Reason"), tt.body)
	}
	w := postOpenRTB(srv.public, `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"cur":["EUR","usd"]}`)
	assert.Equal(t, http.StatusOK, w.Code, "USD among the currencies")
	assert.Equal(t, 1, srv.bids.Len(), "one record: the one bid")
}
