package nethttp

import (
	"net/http"

	"github.com/recbid/dspd/api"
)

// Recoverer turns a panic in a handler (an admin handler, or the public
// router around Serve's own recovery) into a 500 internal_error, with the
// core's log line and metric. net/http's own way to abort a response,
// http.ErrAbortHandler, still aborts.
func Recoverer(core *api.Server) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				core.NotePanic(r.Method, v)
				WriteError(w, http.StatusInternalServerError, api.CodeInternal, "", "internal error")
			}()
			next.ServeHTTP(w, r)
		})
	}
}
