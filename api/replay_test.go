package api_test

import (
	"bufio"
	"net/http"
	"os"
	"testing"

	. "github.com/recbid/dspd/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), MaxBodyBytes+1)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

// TestReplayRequests replays testdata/requests.txt with each line's ts as
// its request time (-trust-request-ts): no request may get a 5xx, and the
// corpus must hold a realistic mix of bids and every no-bid reason a replay
// without win notices can produce.
func TestReplayRequests(t *testing.T) {
	srv := newReplayServer(t, testdataCampaigns)
	lines := readLines(t, "../testdata/requests.txt")
	require.GreaterOrEqual(t, len(lines), 10_000)
	outcomes := map[string]int{}
	for i, body := range lines {
		w := postForm(srv.public, body)
		require.Less(t, w.Code, 500, "line %d", i+1)
		switch w.Code {
		case http.StatusOK:
			outcomes["bid"]++
		case http.StatusNoContent:
			outcomes[w.Header().Get("X-Nobid-Reason")]++
		default:
			outcomes[http.StatusText(w.Code)]++
		}
	}
	t.Logf("outcomes of %d requests: %v", len(lines), outcomes)
	assert.Greater(t, outcomes["bid"], len(lines)/5, "bids")
	for _, reason := range []string{"currency", "no_match", "below_floor", "freq_cap", "budget", "timeout"} {
		assert.Greater(t, outcomes[reason], len(lines)/1000, reason)
	}
	assert.Equal(t, 0, outcomes["Bad Request"], "the corpus holds valid requests only")
}
