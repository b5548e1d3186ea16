package api_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	. "github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/exchange"
)

// TestServeWithoutHTTP drives the endpoints through the transport-neutral
// core alone: a Request in, a Response out.
func TestServeWithoutHTTP(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	post := readFile(t, "../testdata/post.data")
	serve := func(e Endpoint, req Request) *Response {
		if req.Ctx == nil {
			req.Ctx = context.Background()
		}
		resp := AcquireResponse()
		t.Cleanup(resp.Release)
		srv.Serve(e, exchange.DefaultID, &req, resp)
		return resp
	}
	bid := serve(EndpointRecbid, Request{Method: "POST", ContentType: FormMediaType, ContentLength: int64(len(post)),
		Body: bytes.NewReader([]byte(post))})
	require.Equal(t, 200, bid.Status)
	assert.True(t, bid.JSON)
	assert.Contains(t, string(bid.Body()), `"cid":"c-0790"`)

	get := serve(EndpointRecbid, Request{Method: "GET"})
	assert.Equal(t, 405, get.Status)
	assert.Equal(t, "POST", get.Allow)
	assert.JSONEq(t, `{"error":"method_not_allowed","field":"","message":"method not allowed; use POST"}`, string(get.Body()))

	nobid := serve(EndpointRecbid, Request{Method: "POST", ContentType: FormMediaType, Body: bytes.NewReader([]byte("id=1&imp_id=1&w=1&h=1"))})
	assert.Equal(t, 204, nobid.Status)
	assert.Equal(t, bidder.ReasonNoMatch, nobid.NoBid)
	assert.Empty(t, nobid.Body())

	win := serve(EndpointWin, Request{Method: "GET", Query: "bidid=00000000000000000000000000000bad&price=1"})
	assert.Equal(t, 404, win.Status)

	ortb := serve(EndpointOpenRTB, Request{Method: "POST", OpenRTBVersion: "2.6", OpenRTBNbr: "1",
		Body: bytes.NewReader([]byte(ortbBody(`"cur":["EUR"]`, "")))})
	assert.Equal(t, 200, ortb.Status)
	assert.Equal(t, "2.6", ortb.Version)
	assert.JSONEq(t, `{"id":"req-1","nbr":2}`, string(ortb.Body()))

	none := serve(EndpointNone, Request{Method: "GET"})
	assert.Equal(t, 404, none.Status)
}

// TestServeRecoversPanics: a panic in an endpoint is a 500 with a log line
// and a metric, whatever the front end.
func TestServeRecoversPanics(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	resp := AcquireResponse()
	defer resp.Release()
	srv.Serve(EndpointRecbid, exchange.DefaultID, &Request{Method: "POST", ContentType: FormMediaType,
		Body: panicReader{}, Ctx: context.Background()}, resp)
	assert.Equal(t, 500, resp.Status)
	assert.JSONEq(t, `{"error":"internal_error","field":"","message":"internal error"}`, string(resp.Body()))
	assert.Contains(t, get(srv.admin, "/metrics").Body.String(), "dspd_panics_total 1")
}

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

// TestRouteAgreesWithChi: the fasthttp front end's Route sends every path
// where the chi router sends it.
func TestRouteAgreesWithChi(t *testing.T) {
	clear := `"price":{"encoding":"clear"}`
	file := writeFile(t, "exchanges.json", `{"exchanges":[{"id":"default",`+clear+`},{"id":"adx",`+clear+`},{"id":"ox",`+clear+
		`},{"id":"x-1",`+clear+`}]}`)
	srv := buildTestServer(t, testdataCampaigns, serverOptions{exFile: file})
	chi := nethttp.Handler(srv.Server)
	for _, tt := range []struct {
		path     string
		endpoint Endpoint
		exchange string
	}{
		{"/dsp/recbid", EndpointRecbid, "default"},
		{"/dsp/recbid/adx", EndpointRecbid, "adx"},
		{"/dsp/win", EndpointWin, "default"},
		{"/dsp/win/ox", EndpointWin, "ox"},
		{"/openrtb2/bid", EndpointOpenRTB, "default"},
		{"/openrtb2/bid/x-1", EndpointOpenRTB, "x-1"},
		{"/dsp/recbid/default", EndpointNone, ""},
		{"/dsp/recbid/", EndpointNone, ""},
		{"/dsp/recbid/a/b", EndpointNone, ""},
		{"/dsp/recbidx", EndpointNone, ""},
		{"/dsp", EndpointNone, ""},
		{"/", EndpointNone, ""},
		{"/metrics", EndpointNone, ""},
	} {
		e, id := Route(tt.path)
		assert.Equal(t, tt.endpoint, e, tt.path)
		assert.Equal(t, tt.exchange, id, tt.path)
		w := httptest.NewRecorder()
		chi.ServeHTTP(w, httptest.NewRequest(http.MethodPost, tt.path, nil))
		if tt.endpoint == EndpointNone {
			assert.Equal(t, http.StatusNotFound, w.Code, "chi: %s", tt.path)
			assert.Equal(t, "not_found", decodeError(t, w).Error, tt.path)
		} else {
			assert.NotEqual(t, http.StatusNotFound, w.Code, "chi routes %s to its endpoint", tt.path)
		}
	}
}
