package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The helpers below ask a running dspd for bids, for the tests that need
// one made.

// bidOK asks for a bid on body and requires one.
func bidOK(t *testing.T, client *http.Client, addr string, body []byte) {
	t.Helper()
	resp := postRecbid(t, client, addr, string(body))
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "no bid: %s", resp.Header.Get("X-Nobid-Reason"))
}

// postRecbid posts a recbid body and returns the answer, its body unread,
// asking again after a timeout no bid (askAgainOnTimeout).
func postRecbid(t *testing.T, c *http.Client, public, body string) *http.Response {
	t.Helper()
	return askAgainOnTimeout(t, func() (*http.Response, error) {
		return c.Post("http://"+public+"/dsp/recbid", "application/x-www-form-urlencoded", strings.NewReader(body))
	})
}

// askAgainOnTimeout sends a bid request and returns the answer, its body
// unread. A no bid for "timeout" (the decision ran past tmax, which a
// loaded test machine under -race can cause; nothing is kept then) is
// asked again, up to 5 times in all.
func askAgainOnTimeout(t *testing.T, send func() (*http.Response, error)) *http.Response {
	t.Helper()
	for try := 1; ; try++ {
		resp, err := send()
		require.NoError(t, err)
		if try == 5 || resp.StatusCode != http.StatusNoContent || resp.Header.Get("X-Nobid-Reason") != "timeout" {
			return resp
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
