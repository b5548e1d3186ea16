package admin

import (
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/nethttp"
)

// MinTokenBytes is the shortest admin token accepted.
const MinTokenBytes = 32

// The guard's error codes.
// errUnauthorized: no or a wrong admin token.
const errUnauthorized = "unauthorized"

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
			nethttp.WriteError(w, http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType, "",
				"a state-changing admin request needs Content-Type: application/json")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireLoopbackHost lets a request through only when its Host names the
// loopback (localhost, 127.0.0.0/8, ::1) or is absent. Without a token the
// admin listener is loopback only, but a web page whose name an attacker
// rebinds to 127.0.0.1 would be same-origin with it and could send JSON
// without a preflight: its requests carry the attacker's name as Host.
func requireLoopbackHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			nethttp.WriteError(w, http.StatusForbidden, api.CodeForbidden, "",
				"the admin listener answers requests for the loopback only (Host: localhost or 127.0.0.1), or with its token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names the loopback.
func loopbackHost(host string) bool {
	if host == "" {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
