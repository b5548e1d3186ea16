package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/recbid/dspd/api"
)

// FuzzOpenRTB throws random methods, content types, encodings and bodies at
// the whole public handler on /openrtb2/bid: it must never panic (a panic
// would surface as a 500), the status must be one the contract allows, and
// every 400 must be a JSON error body naming a field or saying bad_body.
// When compress is set, the body is sent gzipped (whatever Content-Encoding
// says, so that both valid gzip and gzip the server must refuse are tried).
// Its seeds include a sample of testdata/openrtb/exchange.jsonl, and the
// server has that corpus's currency rates.
func FuzzOpenRTB(f *testing.F) {
	post := readFile(f, "../testdata/openrtb/post.json")
	for _, seed := range []struct {
		method, ct, ce, body string
		compress             bool
	}{
		{"POST", JSONMediaType, "", post, false},
		{"POST", JSONMediaType, "gzip", post, true},
		{"POST", JSONMediaType + "; charset=utf-8", "", multiImpRequest, false},
		{"POST", JSONMediaType, "x-gzip", multiImpRequest, true},
		{"POST", JSONMediaType, "gzip", post, false},
		{"POST", JSONMediaType, "", `{"id":"a","imp":[{"id":"1","banner":{"w":300,"h":250,"format":[{"w":1,"h":2}]},"bidfloor":1.1234567}]}`, false},
		{"POST", JSONMediaType, "", `{"id":"a","":`, false},
		{"POST", JSONMediaType, "", `{"id":"\u00e9\ud83d\ude00","imp":[{"id":"1"}],"device":{"geo":{"country":"usa","region":"ny"}}}`, false},
		{"POST", JSONMediaType, "", `[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]`, false},
		{"POST", FormMediaType, "", "id=a", false},
		{"POST", JSONMediaType, "br", post, false},
		{"GET", "", "", "", false},
		// privacy signals, read and decided (docs/privacy.md)
		{"POST", JSONMediaType, "", consentBody(`"regs":{"gdpr":1,"us_privacy":"1YYN","coppa":0}`,
			`"user":{"id":"u-1","consent":"`+tcString(nil)+`"}`, `"device":{"lmt":0,"dnt":1}`), false},
		{"POST", JSONMediaType, "", consentBody(`"regs":{"ext":{"gdpr":"1","gpp":"DBABMA~CPXxRfA","gpp_sid":[2,7,"x"]}}`,
			`"user":{"ext":{"consent":7}}`, ""), false},
	} {
		f.Add(seed.method, seed.ct, seed.ce, []byte(seed.body), seed.compress)
	}
	// Traffic shaped as exchanges send it (testdata/openrtb/exchange.jsonl):
	// every 40th request, plain and gzipped.
	for i, line := range strings.Split(strings.TrimSpace(readFile(f, exchangeCorpus)), "\n") {
		if i%40 == 0 {
			f.Add("POST", "", "", []byte(line), i%80 == 0)
		}
	}
	// A small gzip body that inflates far past the limit, sent as it is. (No
	// seed is over the limit itself: the fuzzer spends minutes minimizing
	// inputs that large, and the limit is tested in TestOpenRTBHTTPErrors.)
	f.Add("POST", JSONMediaType, "gzip", gzipBytes(f, bytes.Repeat([]byte("{"), 1<<20)), false)
	srv := buildTestServer(f, testdataCampaigns, serverOptions{rates: corpusRates})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf) // reused: a new one costs more than a request
	f.Fuzz(func(t *testing.T, method, ct, ce string, body []byte, compress bool) {
		if method == "" || strings.ContainsAny(method, " \t\r\n()<>@,;:\\\"/[]?={}") {
			method = "POST" // not a valid HTTP method token: net/http would refuse it before us
		}
		if compress {
			buf.Reset()
			zw.Reset(&buf)
			_, _ = zw.Write(body)
			_ = zw.Close()
			body = buf.Bytes()
		}
		r := httptest.NewRequest(http.MethodPost, OpenRTBPath+"?nbr=1", bytes.NewReader(body))
		r.Method = method
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		if ce != "" && !strings.ContainsAny(ce, "\r\n") {
			r.Header.Set("Content-Encoding", ce)
		}
		w := httptest.NewRecorder()
		srv.public.ServeHTTP(w, r)
		switch w.Code {
		case 200:
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("200 with a body that is not JSON: %q", w.Body.String())
			}
		case 204, 405, 413, 415:
		case 400:
			checkBadRequest(t, w)
		default:
			t.Fatalf("status %d for %s %q %q %q: %s", w.Code, method, ct, ce, body, w.Body.String())
		}
	})
}
