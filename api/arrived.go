package api

import "time"

// maxWait bounds the wait a request is taken to have had: a step of the
// wall clock while it waited (the kernel's receive times are wall clock)
// must not make it look hours old.
const maxWait = time.Minute

// arrival returns when r arrived, on the engine's clock: now, less the time
// since its first bytes reached the host when the front end can tell. Its
// wait is observed in dspd_request_wait_seconds.
func (s *Server) arrival(r *Request) time.Time {
	now := s.engine.Now()
	if r.Received.IsZero() {
		return now
	}
	wait := min(max(time.Since(r.Received), 0), maxWait)
	s.metrics.wait.Observe(wait.Seconds())
	return now.Add(-wait)
}
