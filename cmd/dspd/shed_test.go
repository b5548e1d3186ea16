package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShedWhatWaited: a request's deadline counts from the arrival of its
// first bytes, not from its handler. The active hook holds each request
// after the server read it and before the handler ran, as a queue would
// (a busy scheduler, a GC pause): held past its tmax (less the 5 ms
// margin), a request is answered no bid, reason timeout, at once and
// counted as shed; one whose tmax outlasts the hold bids. Measured from
// the handler's start, as before, both would bid. (The hold is the wait
// under test, not a synchronisation: it only makes the request older.)
func TestShedWhatWaited(t *testing.T) {
	const hold = 50 * time.Millisecond
	var holding atomic.Bool
	admin := make(chan string, 1)
	addr, _ := startDspd(t, nil, hooks{
		listening: func(_, a net.Addr) { admin <- a.String() },
		active: func() {
			if holding.Load() {
				time.Sleep(hold)
			}
		},
	})
	adminAddr := <-admin
	form := string(postData(t)) // tmax=120
	openrtb, err := os.ReadFile("../../testdata/openrtb/post.json")
	require.NoError(t, err)
	client := &http.Client{}
	post := func(path, ctype, body string) *http.Response {
		resp, err := client.Post("http://"+addr+path, ctype, strings.NewReader(body))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	tests := []struct {
		path, ctype, body, short, long string
	}{
		{"/dsp/recbid", "application/x-www-form-urlencoded", form, "tmax=20", "tmax=2000"},
		{"/openrtb2/bid", "application/json", string(openrtb), `"tmax":20`, `"tmax":2000`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			tmax := strings.Replace(tt.short, "20", "120", 1)
			require.Contains(t, tt.body, tmax)
			assert.Equal(t, http.StatusOK, post(tt.path, tt.ctype, tt.body).StatusCode, "a bid when nothing holds it")
			holding.Store(true)
			defer holding.Store(false)
			resp := post(tt.path, tt.ctype, strings.Replace(tt.body, tmax, tt.short, 1)) // deadline 15 ms after arrival
			assert.Equal(t, http.StatusNoContent, resp.StatusCode)
			if tt.path == "/dsp/recbid" {
				assert.Equal(t, "timeout", resp.Header.Get("X-Nobid-Reason"))
			}
			resp = post(tt.path, tt.ctype, strings.Replace(tt.body, tmax, tt.long, 1))
			assert.Equal(t, http.StatusOK, resp.StatusCode, "in time: decided")
		})
	}
	metrics := metricLines(scrape(t, adminAddr), "dspd_shed_total", "dspd_request_wait_seconds_count", `dspd_nobid_total{exchange="default",reason="timeout"}`)
	assert.Contains(t, metrics, `dspd_shed_total{endpoint="recbid"} 1`)
	assert.Contains(t, metrics, `dspd_shed_total{endpoint="openrtb"} 1`)
	assert.Contains(t, metrics, `dspd_nobid_total{exchange="default",reason="timeout"} 2`)
	assert.Contains(t, metrics, `dspd_request_wait_seconds_count 6`)
}

// metricLines returns the lines of a metrics page that begin with one of
// the prefixes.
func metricLines(page string, prefixes ...string) []string {
	var out []string
	for _, line := range strings.Split(page, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				out = append(out, line)
			}
		}
	}
	return out
}
