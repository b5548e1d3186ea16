package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"

	. "github.com/recbid/dspd/api"
)

// postOpenRTB posts a BidRequest to /openrtb2/bid (target, when given,
// replaces the path, to add a query) with the given extra headers ("Name",
// "value" pairs).
func postOpenRTB(h http.Handler, body string, headers ...string) *httptest.ResponseRecorder {
	return postOpenRTBTo(h, OpenRTBPath, []byte(body), headers...)
}

func postOpenRTBTo(h http.Handler, target string, body []byte, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
