package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

// threeImps is an OpenRTB request of three 300x250 impressions from user-1.
const threeImps = `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}},{"id":"2","banner":{"w":300,"h":250}},` +
	`{"id":"3","banner":{"w":300,"h":250}}],"user":{"id":"user-1"}}`

// TestOpenRTBCapsAcrossImpressions: the impressions of one request count
// against each other's caps, so one request cannot take a campaign past its
// frequency cap or its budget.
func TestOpenRTBCapsAcrossImpressions(t *testing.T) {
	tests := []struct {
		name     string
		campaign string
		bids     int
	}{
		{"capped at one impression", sequenceCampaign("capped", `"freq_cap":{"impressions":1,"period_s":86400},`), 1},
		{"capped at two impressions", sequenceCampaign("capped", `"freq_cap":{"impressions":2,"period_s":86400},`), 2},
		{"a budget with room for exactly two bids", sequenceCampaign("budget", `"daily_budget":0.004,`), 2},
		{"no cap", sequenceCampaign("free", ``), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, writeCampaigns(t, tt.campaign))
			w := postOpenRTB(srv.public, threeImps)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			var resp bidResponse
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
			assert.Len(t, resp.SeatBid[0].Bid, tt.bids)
			assert.Equal(t, tt.bids, srv.bids.Len(), "one record a bid")
		})
	}
}

// TestCapacity: a server whose bid store is full of live records refuses
// bids (204, reason capacity; OpenRTB nbr 1), counts them, and still books
// the wins of the bids it holds.
func TestCapacity(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, sequenceCampaign("c", ``)), serverOptions{maxBids: 2})
	var ids []string
	for range 2 {
		id, _, _ := bidFor(t, srv, validBody)
		ids = append(ids, id)
	}
	w := postForm(srv.public, validBody)
	assert.Equal(t, http.StatusNoContent, w.Code)
	assert.Equal(t, "capacity", w.Header().Get("X-Nobid-Reason"))
	w = postOpenRTB(srv.public, ortbBody("", ""), "X-Openrtb-Nbr", "1")
	assert.Equal(t, `{"id":"req-1","nbr":1}`, w.Body.String())
	for _, id := range ids {
		assert.Equal(t, http.StatusNoContent, get(srv.public, "/dsp/win?bidid="+id+"&price=1").Code)
	}
	metrics := get(srv.admin, "/metrics").Body.String()
	assert.Contains(t, metrics, `dspd_nobid_total{exchange="default",reason="capacity"} 2`)
	assert.Contains(t, metrics, "dspd_bid_store_refused_total 2")
	assert.Contains(t, metrics, "dspd_state_sweep_pause_max_seconds")
	assert.NotContains(t, metrics, "evicted")
	assert.Contains(t, metrics, "dspd_state_errors_total 0", "a full store is not a failing one")
}

// refusingLedger cannot record wins, as a shared store that is down.
type refusingLedger struct{ bidder.Ledger }

func (refusingLedger) RecordWin(context.Context, bidder.Win) error { return errors.New("store down") }

// TestWinStateUnavailable: when the books cannot be written, the notice is
// answered 503 state_unavailable with Retry-After, never a client error.
func TestWinStateUnavailable(t *testing.T) {
	srv := buildTestServer(t, writeCampaigns(t, sequenceCampaign("c", ``)),
		serverOptions{wrapL: func(l bidder.Ledger) bidder.Ledger { return refusingLedger{l} }})
	id, _, _ := bidFor(t, srv, validBody)
	w := get(srv.public, "/dsp/win?bidid="+id+"&price=1")
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	e := decodeError(t, w)
	assert.Equal(t, "state_unavailable", e.Error)
	assert.True(t, strings.Contains(e.Message, "retry"), e.Message)
}
