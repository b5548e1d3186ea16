package api

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// postOpenRTB posts a BidRequest to /openrtb2/bid (target, when given,
// replaces the path, to add a query) with the given extra headers ("Name",
// "value" pairs).
func postOpenRTB(h http.Handler, body string, headers ...string) *httptest.ResponseRecorder {
	return postOpenRTBTo(h, openrtbPath, []byte(body), headers...)
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

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// ortbBody returns a one-impression BidRequest for a 300x250 banner with
// the given extra top-level members and impression members (JSON text
// without the surrounding braces, "" for none).
func ortbBody(top, imp string) string {
	var b strings.Builder
	b.WriteString(`{"id":"req-1","imp":[{"id":"1","banner":{"w":300,"h":250}`)
	if imp != "" {
		b.WriteString("," + imp)
	}
	b.WriteString("}]")
	if top != "" {
		b.WriteString("," + top)
	}
	b.WriteString("}")
	return b.String()
}
