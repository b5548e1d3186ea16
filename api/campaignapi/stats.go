package campaignapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/bidder"
)

// statsBody is GET /api/v1/campaigns/{id}/stats.
type statsBody struct {
	Campaign string `json:"campaign"`
	Day      string `json:"day"`
	// The books: every replica's, durable (as /admin/stats names them).
	Bids        int64 `json:"bids"`
	Wins        int64 `json:"wins"`
	SpendMicros int64 `json:"spend_micros"` // the sum of clearing CPM prices, in micros
	// SpentMicros is the money spent, in micros (spend_micros / 1000),
	// DailyBudgetMicros the campaign's budget in the same unit (null: none).
	SpentMicros       int64    `json:"spent_micros"`
	DailyBudgetMicros *int64   `json:"daily_budget_micros"`
	WinRate           *float64 `json:"win_rate"` // wins / bids; null without bids
	Pacing            *pacing  `json:"pacing"`   // null: not paced, or not yet ticked
	ThisDSPD          tally    `json:"this_dspd"`
}

type pacing struct {
	Rate              float64   `json:"rate"`                // the share of auctions the campaign enters
	TargetSpendMicros int64     `json:"target_spend_micros"` // the target of spend_micros by now
	At                time.Time `json:"at"`
}

// tally is this dspd's own view (bidder.Tally): in memory, since its start
// or the day's.
type tally struct {
	Impressions int64            `json:"impressions"`
	Clicks      int64            `json:"clicks"`
	NoBids      map[string]int64 `json:"no_bids"` // auctions it dropped out of, by reason
}

// stats serves GET /api/v1/campaigns/{id}/stats?day=YYYY-MM-DD (today,
// on the server clock, by default).
func (h *handlers) stats(w http.ResponseWriter, r *http.Request) {
	id := IDParam(r)
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, api.CodeBadQuery, "the query is not valid url-encoding")
		return
	}
	day := h.cfg.Core.Today()
	if s := q.Get("day"); s != "" {
		if day, err = bidder.ParseDay(s); err != nil {
			writeError(w, http.StatusBadRequest, api.CodeInvalidField, "day must be YYYY-MM-DD")
			return
		}
	}
	body, found, err := readStats(r.Context(), h.cfg.Core, id, day)
	switch {
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, codeUnavailable, "the counters could not be read; retry")
	case !found:
		writeError(w, http.StatusNotFound, codeUnknownCampaign, "no such campaign and no counters for it")
	default:
		writeJSON(w, http.StatusOK, body)
	}
}

// readStats reads a campaign's stats of a day: the books', its pacing,
// and this dspd's tally.
func readStats(ctx context.Context, core *api.Server, id string, day bidder.Day) (statsBody, bool, error) {
	st, found, err := core.Stats(ctx, id, "", day)
	if err != nil || !found {
		return statsBody{}, found, err
	}
	b := statsBody{Campaign: id, Day: day.String(), Bids: st.Bids, Wins: st.Wins, SpendMicros: int64(st.Spend),
		SpentMicros: int64(st.Spend) / 1000}
	if cat := core.Catalog(); cat != nil {
		if c, ok := cat.Campaign(id); ok && c.Limited() {
			v := int64(c.DailyBudget)
			b.DailyBudgetMicros = &v
		}
	}
	if st.Bids > 0 {
		v := float64(st.Wins) / float64(st.Bids)
		b.WinRate = &v
	}
	if p, ok := core.Pacing(id); ok && day == core.Today() {
		b.Pacing = &pacing{Rate: p.Rate, TargetSpendMicros: int64(p.Target), At: p.At.UTC()}
	}
	t := core.Tally().Read(id, day)
	b.ThisDSPD = tally{Impressions: t.Impressions, Clicks: t.Clicks, NoBids: map[string]int64{}}
	for _, r := range bidder.NoBidReasons() {
		if n := t.Drops[r]; n > 0 {
			b.ThisDSPD.NoBids[r.String()] = n
		}
	}
	return b, true, nil
}

// limitParam reads a positive integer parameter with a default and a cap.
func limitParam(q url.Values, name string, def, max int) (int, bool) {
	s := q.Get(name)
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		return 0, false
	}
	return n, true
}
