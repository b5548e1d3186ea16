package campaignapi

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/managed"
)

type exchangeBody struct {
	ID         string         `json:"id"`
	Open       bool           `json:"open"` // anyone may ask for bids: no allow list and no token
	Pricing    string         `json:"pricing"`
	PriceMacro string         `json:"price_macro"`
	Today      exchangeCounts `json:"today"`
}

type exchangeCounts struct {
	Requests     int64            `json:"requests"`
	Bids         int64            `json:"bids"`
	NoBids       int64            `json:"no_bids"`
	Rejected     int64            `json:"rejected"`
	Refused      map[string]int64 `json:"refused"`
	Wins         int64            `json:"wins"`
	Duplicates   int64            `json:"duplicate_wins"`
	SpendMicros  int64            `json:"spend_micros"`
	NoBidReasons map[string]int64 `json:"no_bid_reasons"`
}

// exchanges serves GET /api/v1/exchanges: the serving exchanges (never
// their tokens or keys) and this dspd's traffic with each today.
func (h *handlers) exchanges(w http.ResponseWriter, _ *http.Request) {
	day, since, list := h.cfg.Core.ExchangeStats()
	out := struct {
		Day       string         `json:"day"`
		Since     time.Time      `json:"since"`
		Exchanges []exchangeBody `json:"exchanges"`
	}{Day: day.String(), Since: since.UTC(), Exchanges: []exchangeBody{}}
	for _, e := range list {
		out.Exchanges = append(out.Exchanges, exchangeBody{ID: e.ID, Open: e.Open, Pricing: e.Pricing, PriceMacro: e.PriceMacro,
			Today: exchangeCounts{Requests: e.Requests, Bids: e.Bids, NoBids: e.NoBids, Rejected: e.Rejected, Refused: e.Refused,
				Wins: e.Wins, Duplicates: e.Duplicates, SpendMicros: e.SpendMicros, NoBidReasons: e.NoBidReasons}})
	}
	writeJSON(w, http.StatusOK, out)
}

// MaxAuditLimit is the most audit entries one answer holds.
const MaxAuditLimit = 1000

// audit serves GET /api/v1/audit?campaign=ID&limit=N (newest first; 100
// by default).
func (h *handlers) audit(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, api.CodeBadQuery, "the query is not valid url-encoding")
		return
	}
	limit, ok := limitParam(q, "limit", 100, MaxAuditLimit)
	if !ok {
		writeError(w, http.StatusBadRequest, api.CodeInvalidField, "limit must be an integer 1–"+strconv.Itoa(MaxAuditLimit))
		return
	}
	entries, err := h.cfg.Set.Audit(r.Context(), q.Get("campaign"), limit)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, codeUnavailable, "the audit could not be read; retry")
		return
	}
	if entries == nil {
		entries = []managed.AuditEntry{}
	}
	writeJSON(w, http.StatusOK, struct {
		Entries []managed.AuditEntry `json:"entries"`
	}{entries})
}
