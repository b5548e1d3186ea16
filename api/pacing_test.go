package api_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	. "github.com/recbid/dspd/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// TestPacingThroughHTTP: a campaign its controller holds back answers no
// bid, reason pacing (OpenRTB nbr 0), and its pacing shows in /metrics.
func TestPacingThroughHTTP(t *testing.T) {
	even := ortbCampaign("c-even", "3", `"w":300,"h":250`, `,"pacing":"even","daily_budget":50`)
	srv := newTestServer(t, writeCampaigns(t, even))
	// A rate of 0, as the book holds it for this minute: held back every time.
	_, err := srv.ledger.StorePace(t.Context(), "c-even", bidder.Pace{Tick: testNow.Unix() / 60, Day: bidder.DayOfTime(testNow)})
	require.NoError(t, err)
	require.NoError(t, srv.engine.TickPacing(t.Context(), testNow))

	w := postForm(srv.public, "id=r1&imp_id=1&w=300&h=250")
	require.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "pacing", w.Header().Get("X-Nobid-Reason"))
	w = postOpenRTBTo(srv.public, OpenRTBPath+"?nbr=1", []byte(ortbBody("", "")))
	require.Equal(t, http.StatusOK, w.Code)
	assert.JSONEq(t, `{"id":"req-1","nbr":0}`, w.Body.String())
	assert.Zero(t, srv.bids.Len())

	m := get(srv.admin, "/metrics").Body.String()
	for series, want := range map[string]float64{
		`dspd_nobid_total{exchange="default",reason="pacing"}`:  2,
		`dspd_pacing_rate{campaign="c-even"}`:                   0,
		`dspd_pacing_spend_micros{campaign="c-even"}`:           0,
		`dspd_pacing_budget_micros{campaign="c-even"}`:          50 * 1e6 * 1000,
		`dspd_pacing_target_spend_micros{campaign="c-even"}`:    50 * 1e6 * 1000 / 3, // 08:00 of a uniform first day
		`dspd_pacing_tick_timestamp_seconds{campaign="c-even"}`: float64(testNow.Unix()),
	} {
		assert.InDelta(t, want, metricValue(t, m, series), 1, series)
	}
}

// metricValue returns the value of one series in a /metrics page.
func metricValue(t *testing.T, page, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, line)
			return f
		}
	}
	t.Fatalf("no series %s", series)
	return 0
}
