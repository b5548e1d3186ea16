package api

import "runtime/debug"

// recoverPanic, deferred by Serve, turns a panic in an endpoint into a 500
// with a log line and a metric, so that one bad request can never take the
// server down. It costs one deferred call per request and allocates nothing
// unless a panic happens.
func (s *Server) recoverPanic(req *Request, resp *Response) {
	v := recover()
	if v == nil {
		return
	}
	s.NotePanic(req.Method, v)
	if resp.hasBody {
		resp.jw.SetBytes(resp.jw.Bytes()[:0]) // whatever was half written
	}
	*resp = Response{jw: resp.jw, hasBody: resp.hasBody}
	resp.Fail(statusInternalServerError, CodeInternal, "", "internal error")
}

// NotePanic counts and logs, with its stack, a panic recovered while
// serving a request with the given method: the front ends and the admin
// listener call it from their own recovery.
func (s *Server) NotePanic(method string, v any) {
	s.metrics.panics.Inc()
	s.log.Error("panic serving a request", "method", method, "panic", v, "stack", string(debug.Stack()))
}
