package admin

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRequireLoopbackHost: without a token, only requests for the
// loopback's names pass: a page on a name rebound to 127.0.0.1 sends its
// own name as Host.
func TestRequireLoopbackHost(t *testing.T) {
	h := requireLoopbackHost(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	for _, tt := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:6060", true}, {"127.1.2.3", true}, {"localhost:6060", true}, {"LOCALHOST", true},
		{"[::1]:6060", true}, {"::1", true}, {"", true},
		{"attacker.example", false}, {"attacker.example:6060", false}, {"10.0.0.1:6060", false},
		{"localhost.attacker.example", false}, {"127.0.0.1.nip.io", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/admin/reload", nil)
		r.Host = tt.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if tt.ok {
			assert.Equal(t, http.StatusOK, w.Code, "Host %q", tt.host)
		} else {
			assert.Equal(t, http.StatusForbidden, w.Code, "Host %q", tt.host)
			assert.Contains(t, w.Body.String(), `"error":"forbidden"`)
		}
	}
}
