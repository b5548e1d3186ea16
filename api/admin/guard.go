package admin

import (
	"crypto/subtle"
	"mime"
	"net/http"
	"strings"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"
)

// MinTokenBytes is the shortest admin token accepted.
const MinTokenBytes = 32

// The guard's error codes.
const (
	errUnauthorized         = "unauthorized"
	errUnsupportedMediaType = "unsupported_media_type"
)

// requireToken lets a request through only with Authorization: Bearer
// token, compared in constant time; without a token configured it lets
// every request through (the listener is then loopback only: dspd refuses
// another address without a token).
func requireToken(token string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if token == "" {
			return next
		}
		want := []byte(token)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="dspd admin"`)
				nethttp.WriteError(w, http.StatusUnauthorized, errUnauthorized, "", "the admin listener needs its token: Authorization: Bearer …")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// requireJSON lets a state-changing request through only with
// Content-Type: application/json, which a web page cannot send to another
// origin without the browser asking first (a CORS preflight this listener
// never answers): no page an operator visits can make the browser reload
// dspd.
func requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != api.JSONMediaType {
			nethttp.WriteError(w, http.StatusUnsupportedMediaType, errUnsupportedMediaType, "",
				"a state-changing admin request needs Content-Type: application/json")
			return
		}
		next.ServeHTTP(w, r)
	})
}
