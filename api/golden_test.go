package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/golden"
)

// assertGolden compares got with testdata/golden/name, or rewrites it with
// -update. Bid ids, which the bid store chooses, are written in the golden
// files as 1, 2, 3, … in the order they first appear.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = numberBidIDs(got)
	golden.Assert(t, filepath.Join("..", "testdata", "golden", name), got)
}

// escapingCampaign exercises every escaping rule of the response: HTML
// escaping inside adm, minimal JSON escaping (short forms, \u00xx, and
// <, >, &, U+2028 and non-ASCII written as they are).
const escapingCampaign = `{"id":"c-esc","advertiser":"Smith & \"Sons\" <Ltd> 'O'\b\f\n\r\t\u0001\u001f\u2028 Café 华夏",
 "adomain":["smith\"sons.example","a\\b.example"],"cat":["IAB22-\u00014","IAB<1>"],"status":"active","bid_cpm":0.85,
 "creatives":[{"id":"cr-\"x\"","w":300,"h":250,"secure":true,
  "image_url":"https://cdn.example/i.jpg?a=1&b='2'&c=<3>",
  "click_url":"https://smith.example/l?x=\"y\"&z=1#frag"}]}`

// bidIDs finds the bid ids of an answer: the bidid and each bid's id.
var bidIDs = regexp.MustCompile(`"(?:bidid|id)":"([0-9a-f]{32})"(?:,"(?:cur|impid)")`)

// numberBidIDs replaces the bid ids of an answer, everywhere they appear
// (in the nurl too), with 1, 2, 3, … as 32 hex digits.
func numberBidIDs(body []byte) []byte {
	seen := map[string]string{}
	for _, m := range bidIDs.FindAllSubmatch(body, -1) {
		if _, ok := seen[string(m[1])]; !ok {
			seen[string(m[1])] = fmt.Sprintf("%032x", len(seen)+1)
		}
	}
	for id, n := range seen {
		body = bytes.ReplaceAll(body, []byte(id), []byte(n))
	}
	return body
}

func TestGoldenResponses(t *testing.T) {
	tests := []struct {
		name, campaigns, body string
	}{
		{"post.data.json", testdataCampaigns, readFile(t, "../testdata/post.data")},
		{"escaping.json", writeCampaigns(t, escapingCampaign), `id=r%22q%5C1&imp_id=imp%3C1%3E&w=300&h=250&secure=1&ts=1793779200000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, tt.campaigns)
			w := postForm(srv.public, tt.body)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			assertGolden(t, tt.name, w.Body.Bytes())
			var v map[string]any
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &v), "the response is valid JSON")

			// A second bid on the same request has another bid id and the
			// same length.
			again := postForm(srv.public, tt.body)
			require.Equal(t, http.StatusOK, again.Code)
			assert.Len(t, again.Body.Bytes(), w.Body.Len())
			assert.NotEqual(t, w.Body.String(), again.Body.String())
		})
	}
}

func TestBidResponseShape(t *testing.T) {
	srv := newTestServer(t, testdataCampaigns)
	w := postForm(srv.public, readFile(t, "../testdata/post.data"))
	require.Equal(t, http.StatusOK, w.Code)
	var resp struct {
		ID      string `json:"id"`
		BidID   string `json:"bidid"`
		Cur     string `json:"cur"`
		SeatBid []struct {
			Seat string `json:"seat"`
			Bid  []struct {
				ID, ImpID, AdID, CID, CrID, NURL, Adm string
				Price                                 json.Number
				W, H                                  int
			} `json:"bid"`
		} `json:"seatbid"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}$`), resp.BidID)
	assert.Equal(t, "USD", resp.Cur)
	require.Len(t, resp.SeatBid, 1)
	require.Len(t, resp.SeatBid[0].Bid, 1)
	b := resp.SeatBid[0].Bid[0]
	assert.Equal(t, resp.BidID, b.ID)
	assert.Equal(t, "1", b.ImpID)
	assert.Equal(t, b.AdID, b.CrID)
	assert.Equal(t, "http://localhost:9090/dsp/win?bidid="+resp.BidID+"&price=${AUCTION_PRICE}", b.NURL)
	assert.Equal(t, 320, b.W)
	assert.Equal(t, 50, b.H)
	c, ok := srv.Catalog().Campaign(b.CID)
	require.True(t, ok)
	assert.Equal(t, c.BidCPM.String(), b.Price.String())
	assert.InDelta(t, 800, w.Body.Len(), 120, "about the size of the 2016 answer")
}
