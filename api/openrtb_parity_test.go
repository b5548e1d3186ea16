package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/synth"
)

// newClockServer is newTestServer on a clock the test sets (Unix ms).
func newClockServer(t testing.TB, path string) (*testServer, *atomic.Int64) {
	t.Helper()
	var clock atomic.Int64
	clock.Store(testNow.UnixMilli())
	srv := buildTestServer(t, path, serverOptions{clock: func() time.Time { return time.UnixMilli(clock.Load()).UTC() }})
	return srv, &clock
}

// outcome is what a bid request got: the winner and price, or the reason.
type outcome struct {
	Reason             string
	Campaign, Creative string
	Price              string
	W, H               int
}

type bidResponse struct {
	ID      string `json:"id"`
	BidID   string `json:"bidid"`
	Cur     string `json:"cur"`
	SeatBid []struct {
		Seat string `json:"seat"`
		Bid  []struct {
			ID      string      `json:"id"`
			ImpID   string      `json:"impid"`
			Price   json.Number `json:"price"`
			AdID    string      `json:"adid"`
			CID     string      `json:"cid"`
			CrID    string      `json:"crid"`
			ADomain []string    `json:"adomain"`
			Cat     []string    `json:"cat"`
			W       int         `json:"w"`
			H       int         `json:"h"`
			MType   int         `json:"mtype"`
			NURL    string      `json:"nurl"`
			BURL    string      `json:"burl"`
			Adm     string      `json:"adm"`
		} `json:"bid"`
	} `json:"seatbid"`
}

// outcomeOf reads a recbid or single-impression OpenRTB answer.
func outcomeOf(t *testing.T, code int, header http.Header, body []byte) outcome {
	t.Helper()
	switch code {
	case http.StatusNoContent:
		return outcome{Reason: header.Get("X-Nobid-Reason")}
	case http.StatusOK:
		var resp bidResponse
		require.NoError(t, json.Unmarshal(body, &resp), string(body))
		require.Len(t, resp.SeatBid, 1)
		require.Len(t, resp.SeatBid[0].Bid, 1)
		b := resp.SeatBid[0].Bid[0]
		return outcome{Campaign: b.CID, Creative: b.CrID, Price: b.Price.String(), W: b.W, H: b.H}
	}
	t.Fatalf("status %d: %s", code, body)
	return outcome{}
}

// TestOpenRTBDecisionParity translates every line of testdata/requests.txt
// to OpenRTB and requires the same decision as the form request: the same
// campaign, creative and price, or the same no-bid reason. Both are decided
// on the same fixed clock, the line's ts (OpenRTB has no request time: dspd
// uses its clock, which the test sets to ts).
func TestOpenRTBDecisionParity(t *testing.T) {
	srv, clock := newClockServer(t, testdataCampaigns)
	lines := readLines(t, "../testdata/requests.txt")
	require.GreaterOrEqual(t, len(lines), 10_000)
	counts := map[string]int{}
	for i, form := range lines {
		q, err := url.ParseQuery(form)
		require.NoError(t, err)
		ts, err := strconv.ParseInt(q.Get("ts"), 10, 64)
		require.NoError(t, err)
		ortb, err := synth.OpenRTB(form)
		require.NoError(t, err)
		clock.Store(ts)

		// The form endpoint has no consent keys; OpenRTB reads the
		// signals (docs/privacy.md). With lmt=1 the OpenRTB request is
		// decided without its user: as the form request without its uid,
		// where a frequency cap that cannot be kept is reason consent.
		contextual := form
		if q.Get("lmt") == "1" {
			q.Del("uid")
			contextual = q.Encode()
		}
		fw := postForm(srv.public, contextual)
		want := outcomeOf(t, fw.Code, fw.Header(), fw.Body.Bytes())
		switch {
		case q.Get("gdpr") == "1": // gdpr=1 without a TC string: no consent at all
			want = outcome{Reason: "consent"}
		case q.Get("lmt") == "1" && want.Reason == "freq_cap":
			want.Reason = "consent"
		}
		ow := postOpenRTB(srv.public, ortb)
		got := outcomeOf(t, ow.Code, ow.Header(), ow.Body.Bytes())
		require.Equal(t, want, got, "line %d:\n%s\n%s", i+1, form, ortb)
		if want.Reason == "" {
			counts["bid"]++
		} else {
			counts[want.Reason]++
		}
	}
	t.Logf("outcomes of %d requests, each twice: %v", len(lines), counts)
	assert.Greater(t, counts["bid"], len(lines)/5)
	for _, reason := range []string{"currency", "no_match", "below_floor", "freq_cap", "budget", "timeout", "consent"} {
		assert.Positive(t, counts[reason], reason)
	}
}

// TestOpenRTBCorpus checks that the committed corpus is the translation of
// testdata/requests.txt, line for line (cmd/gendata's test checks that it is
// what the generator writes), and that it replays without a 4xx or 5xx.
func TestOpenRTBCorpus(t *testing.T) {
	forms := readLines(t, "../testdata/requests.txt")
	corpus := readLines(t, "../testdata/openrtb/requests.jsonl")
	require.Len(t, corpus, len(forms))
	want, err := synth.OpenRTBRequests(forms)
	require.NoError(t, err)
	srv := newTestServer(t, testdataCampaigns)
	for i, body := range corpus {
		require.Equal(t, want[i], body, "line %d", i+1)
		if i%10 == 0 { // a sample; the parity test decides every line
			w := postOpenRTB(srv.public, body)
			require.Contains(t, []int{http.StatusOK, http.StatusNoContent}, w.Code, "line %d: %s", i+1, w.Body.String())
		}
	}
}
