package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/recbid/dspd/api"
)

// FuzzRecbid throws random methods, content types and bodies at the whole
// public handler: it must never panic (a panic would surface as a 500), the
// status must be one the contract allows, and every 400 must name a field or
// be bad_body.
func FuzzRecbid(f *testing.F) {
	post := readFile(f, "../testdata/post.data")
	for _, seed := range []struct{ method, ct, body string }{
		{"POST", FormMediaType, post},
		{"POST", FormMediaType, validBody},
		{"POST", FormMediaType, "id=a&imp_id=1&w=300&h=250&floor=1.1234567"},
		{"POST", FormMediaType + "; charset=utf-8", "id=%zz"},
		{"POST", "application/json", "{}"},
		{"GET", "", ""},
		{"POST", FormMediaType, strings.Repeat("a", MaxBodyBytes+1)},
		{"POST", FormMediaType, "id=x&imp_id=y&w=1&h=1&cat=%2C%2C&bcat=IAB1&badv=a.example&ts=0&tmax=1"},
	} {
		f.Add(seed.method, seed.ct, seed.body)
	}
	srv := newTestServer(f, testdataCampaigns)
	f.Fuzz(func(t *testing.T, method, ct, body string) {
		if method == "" || strings.ContainsAny(method, " \t\r\n()<>@,;:\\\"/[]?={}") {
			method = "POST" // not a valid HTTP method token: net/http would refuse it before us
		}
		r := httptest.NewRequest(http.MethodPost, "/dsp/recbid", strings.NewReader(body))
		r.Method = method
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		w := httptest.NewRecorder()
		srv.public.ServeHTTP(w, r)
		switch w.Code {
		case 200, 204, 405, 413, 415:
		case 400:
			checkBadRequest(t, w)
		default:
			t.Fatalf("status %d for %s %q %q: %s", w.Code, method, ct, body, w.Body.String())
		}
	})
}

// checkBadRequest requires a 400's body to be the JSON error of the
// contract, naming a field or saying bad_body.
func checkBadRequest(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	var e struct{ Error, Field string }
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("400 without a JSON error body: %q", w.Body.String())
	}
	if e.Field == "" && e.Error != "bad_body" {
		t.Fatalf("400 %s names no field", e.Error)
	}
}
