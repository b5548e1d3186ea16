package fasthttp

import (
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/valyala/fasthttp"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"
)

// TestAdaptersReadHeadersAlike: both front ends give the core the same
// header values: the first Authorization and X-Openrtb-Nbr, the first
// Content-Encoding and how many there were, X-Openrtb-Version only when
// there is exactly one, every X-Forwarded-For line in order.
func TestAdaptersReadHeadersAlike(t *testing.T) {
	tests := []struct {
		name    string
		headers [][2]string
		want    api.Request
	}{
		{name: "none", want: api.Request{}},
		{name: "one of each", headers: [][2]string{
			{"Authorization", "Bearer a"}, {"X-Openrtb-Nbr", "1"}, {"Content-Encoding", "gzip"},
			{"X-Openrtb-Version", "2.6"}, {"X-Forwarded-For", "192.0.2.1"},
		}, want: api.Request{Authorization: "Bearer a", OpenRTBNbr: "1", ContentEncoding: "gzip", Encodings: 1,
			OpenRTBVersion: "2.6", ForwardedFor: []string{"192.0.2.1"}}},
		{name: "repeated", headers: [][2]string{
			{"Authorization", "Bearer a"}, {"Authorization", "Bearer b"}, {"X-Openrtb-Nbr", "1"}, {"X-Openrtb-Nbr", "2"},
			{"Content-Encoding", "gzip"}, {"Content-Encoding", "br"}, {"X-Openrtb-Version", "2.5"}, {"X-Openrtb-Version", "2.6"},
			{"X-Forwarded-For", "192.0.2.1"}, {"X-Forwarded-For", "192.0.2.2, 192.0.2.3"},
		}, want: api.Request{Authorization: "Bearer a", OpenRTBNbr: "1", ContentEncoding: "gzip", Encodings: 2,
			ForwardedFor: []string{"192.0.2.1", "192.0.2.2, 192.0.2.3"}}},
		{name: "any case", headers: [][2]string{
			{"authorization", "Bearer a"}, {"x-openrtb-version", "2.6"}, {"x-forwarded-for", "192.0.2.1"},
		}, want: api.Request{Authorization: "Bearer a", OpenRTBVersion: "2.6", ForwardedFor: []string{"192.0.2.1"}}},
	}
	// pick keeps the fields under test.
	pick := func(r api.Request) api.Request {
		return api.Request{Authorization: r.Authorization, OpenRTBNbr: r.OpenRTBNbr, ContentEncoding: r.ContentEncoding,
			Encodings: r.Encodings, OpenRTBVersion: r.OpenRTBVersion, ForwardedFor: r.ForwardedFor}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hr := httptest.NewRequest("POST", "/dsp/recbid", strings.NewReader(""))
			var fr fasthttp.Request
			fr.Header.SetMethod("POST")
			fr.SetRequestURI("/dsp/recbid")
			for _, h := range tt.headers {
				hr.Header.Add(h[0], h[1])
				fr.Header.Add(h[0], h[1])
			}
			var ctx fasthttp.RequestCtx
			ctx.Init(&fr, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 9), Port: 1}, nil)
			var st fastState
			fastRequest(&ctx, &st)
			assert.Equal(t, tt.want, pick(nethttp.CoreRequest(hr)), "net/http")
			assert.Equal(t, tt.want, pick(st.req), "fasthttp")
		})
	}
}
