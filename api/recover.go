package api

import (
	"net/http"
	"runtime/debug"
)

// recoverPanics turns a panic in a handler into a 500 with a log line and a
// metric, so that one bad request can never take the server down. It costs
// one deferred call per request and allocates nothing unless a panic happens.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler { // net/http's own way to abort a response
				panic(v)
			}
			s.metrics.panics.Inc()
			s.log.Error("panic serving a request", "method", r.Method, "path", r.URL.Path,
				"panic", v, "stack", string(debug.Stack()))
			writeError(w, http.StatusInternalServerError, errInternal, "", "internal error")
		}()
		next.ServeHTTP(w, r)
	})
}
