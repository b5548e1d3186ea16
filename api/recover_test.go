package api_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/recbid/dspd/api/nethttp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPanicBecomes500(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	var logs bytes.Buffer
	srv.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	h := nethttp.Recoverer(srv.Server)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/dsp/recbid", nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Equal(t, "internal_error", decodeError(t, w).Error)
	assert.Contains(t, logs.String(), "panic serving a request")
	assert.Contains(t, logs.String(), "boom")
	assert.Contains(t, get(srv.admin, "/metrics").Body.String(), "dspd_panics_total 1")

	// The server keeps serving.
	assert.Equal(t, http.StatusOK, postForm(srv.public, readFile(t, "../testdata/post.data")).Code)

	// net/http's own abort still aborts.
	abort := nethttp.Recoverer(srv.Server)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	require.PanicsWithValue(t, http.ErrAbortHandler, func() {
		abort.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	})
}
