package api_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/synth"
)

const exchangeCorpus = "../testdata/openrtb/exchange.jsonl"

// corpusImp is what the corpus test reads of an impression, independently
// of the server's decoder.
type corpusImp struct {
	ID     string `json:"id"`
	Banner *struct {
		W      int `json:"w"`
		H      int `json:"h"`
		Format []struct {
			W int `json:"w"`
			H int `json:"h"`
		} `json:"format"`
	} `json:"banner"`
	BidFloor    json.Number `json:"bidfloor"`
	BidFloorCur string      `json:"bidfloorcur"`
}

// offers reports whether the impression offers a w×h banner: as banner
// w/h or among the first 16 of its formats (dspd's limit).
func (imp *corpusImp) offers(w, h int) bool {
	if imp.Banner == nil {
		return false
	}
	if imp.Banner.W == w && imp.Banner.H == h {
		return true
	}
	for i, f := range imp.Banner.Format {
		if i < maxFormats && f.W == w && f.H == h {
			return true
		}
	}
	return false
}

// corpusRate reads the USD value of one unit of cur from the rates file,
// by the rule of package currency, as an exact rational.
func corpusRate(t *testing.T, conv map[string]map[string]json.Number, cur string) *big.Rat {
	t.Helper()
	cur = strings.ToUpper(cur)
	if cur == "" || cur == "USD" {
		return big.NewRat(1, 1)
	}
	if r, ok := conv[cur]["USD"]; ok {
		v, ok := new(big.Rat).SetString(string(r))
		require.True(t, ok)
		return v
	}
	if r, ok := conv["USD"][cur]; ok {
		v, ok := new(big.Rat).SetString(string(r))
		require.True(t, ok)
		return v.Inv(v)
	}
	return nil
}

// TestOpenRTBExchangeCorpus sends every request of testdata/openrtb/
// exchange.jsonl, traffic shaped as real exchanges send it (a few with
// malformed optional fields), to a server with the corpus's currency
// rates: none is answered 400, since the field policy makes every one
// servable, and every bid is for a banner size its impression offers, at
// or above its floor in USD, typed banner, and blocked by none of the
// request's bcat and badv.
func TestOpenRTBExchangeCorpus(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(readFile(t, exchangeCorpus)), "\n")
	require.GreaterOrEqual(t, len(lines), 1000)
	var rates struct {
		Conversions map[string]map[string]json.Number `json:"conversions"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFile(t, corpusRates)), &rates))
	srv := buildTestServer(t, testdataCampaigns, serverOptions{rates: corpusRates, vendor: synth.GVLVendorID})

	status := map[int]int{}
	var bids, convertedBids, roundedBids, badFieldRequests int
	legal := map[string]int{} // what each request's privacy signals allowed, and what came of it
	for n, line := range lines {
		before := consentCounts(t, srv)
		w := postOpenRTB(srv.public, line)
		status[w.Code]++
		require.Contains(t, []int{http.StatusOK, http.StatusNoContent}, w.Code, "line %d: %s", n+1, w.Body.String())
		outcome := changedOutcome(t, before, consentCounts(t, srv))
		userLevel := outcome == "no_gdpr" || outcome == "consented"
		switch {
		case w.Code == http.StatusOK && userLevel:
			legal["bid with user-level processing"]++
		case w.Code == http.StatusOK:
			legal["bid contextually"]++
		case w.Header().Get("X-Nobid-Reason") == "consent":
			legal["no bid: consent"]++
		default:
			legal["no bid: other reasons"]++
		}
		if w.Code != http.StatusOK {
			continue
		}
		var req struct {
			Imp  []json.RawMessage `json:"imp"`
			BCat []any             `json:"bcat"`
			BAdv []any             `json:"badv"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &req), "line %d", n+1)
		imps := map[string]json.RawMessage{}
		for _, raw := range req.Imp {
			var imp corpusImp
			_ = json.Unmarshal(raw, &imp)
			imps[imp.ID] = raw
		}
		var resp bidResponse
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp), "line %d", n+1)
		assert.Equal(t, "USD", resp.Cur)
		require.Len(t, resp.SeatBid, 1)
		for _, b := range resp.SeatBid[0].Bid {
			bids++
			raw, ok := imps[b.ImpID]
			require.True(t, ok, "line %d: a bid for impression %q the request does not have", n+1, b.ImpID)
			var imp corpusImp
			require.NoError(t, json.Unmarshal(raw, &imp))
			assert.Equal(t, 1, b.MType, "line %d: typed banner", n+1)
			require.NotNil(t, imp.Banner, "line %d: a bid on an impression with no banner", n+1)
			assert.True(t, imp.offers(b.W, b.H), "line %d: %dx%d is not offered", n+1, b.W, b.H)
			assert.NotContains(t, string(raw), `"private_auction":1`, "line %d: a bid in a private auction", n+1)

			price, ok := new(big.Rat).SetString(string(b.Price))
			require.True(t, ok)
			if imp.BidFloor != "" {
				floor, ok := new(big.Rat).SetString(string(imp.BidFloor))
				require.True(t, ok)
				rate := corpusRate(t, rates.Conversions, imp.BidFloorCur)
				require.NotNil(t, rate, "line %d: a bid on a floor in %s, which has no rate", n+1, imp.BidFloorCur)
				floorUSD := floor.Mul(floor, rate)
				assert.True(t, price.Cmp(floorUSD) >= 0, "line %d: price %s under the floor %s %s (%s USD)",
					n+1, b.Price, imp.BidFloor, imp.BidFloorCur, floorUSD.FloatString(9))
				if c := strings.ToUpper(imp.BidFloorCur); c != "" && c != "USD" {
					convertedBids++
				}
				if len(imp.BidFloor) > 10 {
					roundedBids++
				}
			}
			for _, item := range req.BCat {
				if s, ok := item.(string); ok {
					for _, c := range b.Cat {
						assert.False(t, strings.HasPrefix(strings.ToUpper(c), strings.ToUpper(s)) &&
							(len(c) == len(s) || c[len(s)] == '-'), "line %d: cat %s blocked by %s", n+1, c, s)
					}
				}
			}
			for _, item := range req.BAdv {
				if s, ok := item.(string); ok {
					assert.NotContains(t, b.ADomain, s, "line %d: adomain blocked", n+1)
				}
			}
		}
		if strings.Contains(line, `"test":2`) || strings.Contains(line, `"domain":"https://`) || strings.Contains(line, `"geo":[]`) {
			badFieldRequests++
		}
	}
	t.Logf("%d requests: %d answered 200 (%d bids: %d on converted floors, %d on floors of more than 6 decimals), %d 204, %d 400; "+
		"%d of them with a malformed optional field",
		len(lines), status[200], bids, convertedBids, roundedBids, status[204], status[400], badFieldRequests)
	t.Logf("privacy signals (vendor %d): %v", synth.GVLVendorID, legal)
	assert.Positive(t, legal["bid contextually"])
	assert.Positive(t, legal["no bid: consent"])
	assert.Greater(t, legal["bid with user-level processing"], legal["bid contextually"])
	assert.Zero(t, status[400])
	// The corpus exercises what it should: bids on converted floors, on
	// rounded ones, and on requests with malformed optional fields.
	assert.Positive(t, convertedBids)
	assert.Positive(t, roundedBids)
	assert.Positive(t, badFieldRequests)
	assert.Greater(t, status[200], len(lines)/4)

	m := get(srv.admin, "/metrics").Body.String()
	assert.Regexp(t, `dspd_openrtb_invalid_fields_total\{field="site.domain"\} [1-9]`, m)
	assert.Contains(t, m, `dspd_openrtb_requests_total{exchange="default",outcome="rejected"} 0`+"\n")
}

// consentCounts reads dspd_consent_total by outcome.
func consentCounts(t *testing.T, srv *testServer) map[string]float64 {
	t.Helper()
	mfs, err := srv.Gatherer().Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "dspd_consent_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	return out
}

// changedOutcome is the one outcome counted between two readings.
func changedOutcome(t *testing.T, before, after map[string]float64) string {
	t.Helper()
	var changed []string
	for o, n := range after {
		if n != before[o] {
			changed = append(changed, o)
		}
	}
	require.Len(t, changed, 1, "one outcome per request")
	return changed[0]
}
