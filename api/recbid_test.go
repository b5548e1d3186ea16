package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/recbid/dspd/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validBody is a bid request that passes validation.
const validBody = "id=req-1&imp_id=1&w=300&h=250&ts=1793779200000"

type errorBody struct {
	Error   string `json:"error"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

func decodeError(t *testing.T, w *httptest.ResponseRecorder) errorBody {
	t.Helper()
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var e errorBody
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e), w.Body.String())
	assert.NotEmpty(t, e.Message)
	return e
}

func TestRecbidErrors(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name        string
		method      string
		contentType string // "-" for none
		body        string
		status      int
		code, field string
	}{
		{name: "GET", method: "GET", body: validBody, status: 405, code: "method_not_allowed"},
		{name: "PUT with bad body too", method: "PUT", body: "%", status: 405, code: "method_not_allowed"},
		{name: "no content type", contentType: "-", body: validBody, status: 415, code: "unsupported_media_type"},
		{name: "json", contentType: "application/json", body: validBody, status: 415, code: "unsupported_media_type"},
		{name: "multipart", contentType: "multipart/form-data; boundary=x", body: validBody, status: 415, code: "unsupported_media_type"},
		{name: "other parameter", contentType: "application/x-www-form-urlencoded; foo=bar", body: validBody, status: 415, code: "unsupported_media_type"},
		{name: "content type before size", contentType: "text/plain", body: long(MaxBodyBytes + 1), status: 415, code: "unsupported_media_type"},
		{name: "too large", body: validBody + "&pad=" + long(MaxBodyBytes), status: 413, code: "body_too_large"},
		{name: "size before encoding", body: "%" + long(MaxBodyBytes), status: 413, code: "body_too_large"},
		{name: "bad encoding", body: validBody + "&x=%G0", status: 400, code: "bad_body"},
		{name: "encoding before fields", body: "w=abc&x=%", status: 400, code: "bad_body"},
		{name: "id missing", body: "imp_id=1&w=300&h=250", status: 400, code: "missing_field", field: "id"},
		{name: "id empty is absent", body: "id=&imp_id=1&w=300&h=250", status: 400, code: "missing_field", field: "id"},
		{name: "id too long", body: "id=" + long(65) + "&imp_id=1&w=300&h=250", status: 400, code: "invalid_field", field: "id"},
		{name: "id with a space", body: "id=a+b&imp_id=1&w=300&h=250", status: 400, code: "invalid_field", field: "id"},
		{name: "id with a control", body: "id=a%01&imp_id=1&w=300&h=250", status: 400, code: "invalid_field", field: "id"},
		{name: "id before imp_id", body: "w=300&h=250", status: 400, code: "missing_field", field: "id"},
		{name: "imp_id missing", body: "id=a&w=300&h=250", status: 400, code: "missing_field", field: "imp_id"},
		{name: "imp_id non-ASCII", body: "id=a&imp_id=%C3%A9&w=300&h=250", status: 400, code: "invalid_field", field: "imp_id"},
		{name: "w missing", body: "id=a&imp_id=1&h=250", status: 400, code: "missing_field", field: "w"},
		{name: "w not a number", body: "id=a&imp_id=1&w=abc&h=250", status: 400, code: "invalid_field", field: "w"},
		{name: "w zero", body: "id=a&imp_id=1&w=0&h=250", status: 400, code: "invalid_field", field: "w"},
		{name: "w too large", body: "id=a&imp_id=1&w=10001&h=250", status: 400, code: "invalid_field", field: "w"},
		{name: "w signed", body: "id=a&imp_id=1&w=%2B300&h=250", status: 400, code: "invalid_field", field: "w"},
		{name: "w before h", body: "id=a&imp_id=1&w=x", status: 400, code: "invalid_field", field: "w"},
		{name: "h missing", body: "id=a&imp_id=1&w=300", status: 400, code: "missing_field", field: "h"},
		{name: "missing h before bad floor", body: "id=a&imp_id=1&w=300&floor=-1", status: 400, code: "missing_field", field: "h"},
		{name: "floor negative", body: validBody + "&floor=-1", status: 400, code: "invalid_field", field: "floor"},
		{name: "floor 7 decimals", body: validBody + "&floor=1.1234567", status: 400, code: "invalid_field", field: "floor"},
		{name: "floor exponent", body: validBody + "&floor=1e2", status: 400, code: "invalid_field", field: "floor"},
		{name: "cur 2 letters", body: validBody + "&cur=US", status: 400, code: "invalid_field", field: "cur"},
		{name: "cur digits", body: validBody + "&cur=123", status: 400, code: "invalid_field", field: "cur"},
		{name: "site not a domain", body: validBody + "&site=a+b", status: 400, code: "invalid_field", field: "site"},
		{name: "bundle too long", body: validBody + "&bundle=" + long(257), status: 400, code: "invalid_field", field: "bundle"},
		{name: "cat too long", body: validBody + "&cat=" + long(257), status: 400, code: "invalid_field", field: "cat"},
		{name: "bcat too long", body: validBody + "&bcat=" + long(257), status: 400, code: "invalid_field", field: "bcat"},
		{name: "badv too long", body: validBody + "&badv=" + long(257), status: 400, code: "invalid_field", field: "badv"},
		{name: "os with a space", body: validBody + "&os=windows+phone", status: 400, code: "invalid_field", field: "os"},
		{name: "devtype 8", body: validBody + "&devtype=8", status: 400, code: "invalid_field", field: "devtype"},
		{name: "devtype text", body: validBody + "&devtype=phone", status: 400, code: "invalid_field", field: "devtype"},
		{name: "country 3 letters", body: validBody + "&country=CHN", status: 400, code: "invalid_field", field: "country"},
		{name: "region malformed", body: validBody + "&region=Shanghai", status: 400, code: "invalid_field", field: "region"},
		{name: "city too long", body: validBody + "&city=" + long(257), status: 400, code: "invalid_field", field: "city"},
		{name: "uid too long", body: validBody + "&uid=" + long(129), status: 400, code: "invalid_field", field: "uid"},
		{name: "ts negative", body: "id=a&imp_id=1&w=300&h=250&ts=-1", status: 400, code: "invalid_field", field: "ts"},
		{name: "ts not a number", body: "id=a&imp_id=1&w=300&h=250&ts=now", status: 400, code: "invalid_field", field: "ts"},
		{name: "ts past year 9999", body: "id=a&imp_id=1&w=300&h=250&ts=253402300800000", status: 400, code: "invalid_field", field: "ts"},
		{name: "tmax zero", body: validBody + "&tmax=0", status: 400, code: "invalid_field", field: "tmax"},
		{name: "tmax too large", body: validBody + "&tmax=10001", status: 400, code: "invalid_field", field: "tmax"},
		{name: "test 2", body: validBody + "&test=2", status: 400, code: "invalid_field", field: "test"},
		{name: "secure true", body: validBody + "&secure=true", status: 400, code: "invalid_field", field: "secure"},
		{name: "first error in table order", body: validBody + "&secure=9&country=CHN&floor=x", status: 400, code: "invalid_field", field: "floor"},
		{name: "later value ignored", body: validBody + "&floor=1&floor=x", status: accepted},
		{name: "ignored key may be long", body: validBody + "&ua=" + long(2000), status: accepted},
		{name: "charset allowed", contentType: "Application/X-WWW-Form-Urlencoded; charset=UTF-8", body: validBody, status: accepted},
		{name: "spaces, tabs, a trailing semicolon", contentType: " application/x-www-form-urlencoded\t;CHARSET = x ; ", body: validBody, status: accepted},
		{name: "charset twice", contentType: "application/x-www-form-urlencoded; charset=a; charset=b", body: validBody, status: accepted},
		{name: "RFC 2231 parameter", contentType: "application/x-www-form-urlencoded; foo*=x", body: validBody, status: 415, code: "unsupported_media_type"},
		{name: "parameter without a value", contentType: "application/x-www-form-urlencoded; charset", body: validBody, status: 415, code: "unsupported_media_type"},
		{name: "media type prefix", contentType: "application/x-www-form-urlencodedx", body: validBody, status: 415, code: "unsupported_media_type"},
		{name: "many leading zeros", body: "id=a&imp_id=1&w=000000000000000000000300&h=0250&ts=0001793779200000", status: accepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			r := httptest.NewRequest(method, "/dsp/recbid", strings.NewReader(tt.body))
			switch tt.contentType {
			case "":
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			case "-":
			default:
				r.Header.Set("Content-Type", tt.contentType)
			}
			w := httptest.NewRecorder()
			before := srv.bids.Len()
			srv.public.ServeHTTP(w, r)
			if tt.status == accepted {
				assert.Contains(t, []int{200, 204}, w.Code, w.Body.String())
				return
			}
			require.Equal(t, tt.status, w.Code, w.Body.String())
			assert.Equal(t, before, srv.bids.Len(), "nothing is recorded for a rejected request")
			e := decodeError(t, w)
			assert.Equal(t, tt.code, e.Error)
			assert.Equal(t, tt.field, e.Field)
			if tt.status == 405 {
				assert.Equal(t, "POST", w.Header().Get("Allow"))
			}
		})
	}
}

// accepted stands for 200 or 204 in status tables.
const accepted = -1

func TestRecbidDeclaredLengthTooLarge(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	r := httptest.NewRequest(http.MethodPost, "/dsp/recbid", strings.NewReader(validBody))
	r.Header.Set("Content-Type", FormMediaType)
	r.ContentLength = MaxBodyBytes + 1
	w := httptest.NewRecorder()
	srv.public.ServeHTTP(w, r)
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
}

func TestRecbidBodyAtTheLimit(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	body := validBody + "&pad="
	body += strings.Repeat("x", MaxBodyBytes-len(body))
	require.Len(t, body, MaxBodyBytes)
	w := postForm(srv.public, body)
	assert.Equal(t, http.StatusOK, w.Code)
}

func TestPublicListenerServesOnlyBidding(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	for _, path := range []string{"/", "/metrics", "/debug/pprof/", "/healthz", "/admin/stats", "/dsp", "/dsp/recbid/x"} {
		w := get(srv.public, path)
		assert.Equal(t, http.StatusNotFound, w.Code, path)
		assert.Equal(t, "not_found", decodeError(t, w).Error, path)
	}
}

func TestNoBidAnswer(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	tests := []struct{ body, reason string }{
		{validBody + "&cur=EUR", "currency"},
		{"id=a&imp_id=1&w=7&h=7", "no_match"},
		{readFile(t, "../testdata/post.data") + "&floor=1000", "below_floor"},
		{readFile(t, "../testdata/post.data") + "&tmax=5", "timeout"},
	}
	for _, tt := range tests {
		body := tt.body
		if strings.Contains(body, "&floor=1000") { // the first floor counts: move it first
			body = "floor=1000&" + strings.TrimSuffix(body, "&floor=1000")
		}
		if strings.Contains(body, "&tmax=5") {
			body = "tmax=5&" + strings.TrimSuffix(body, "&tmax=5")
		}
		w := postForm(srv.public, body)
		require.Equal(t, http.StatusNoContent, w.Code, tt.reason)
		assert.Equal(t, tt.reason, w.Header().Get("X-Nobid-Reason"))
		assert.Empty(t, w.Body.Bytes())
	}
}
