package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/recbid/dspd/bidder"
)

// AdminLedger reads the books of a running dspd through its admin
// listener, GET /admin/stats, one campaign (and exchange) at a time.
//
// The listener has no route that lists the campaigns it holds counters
// for: it is asked for the keys of the log and for Campaigns (for all
// exchanges), so a campaign the books counted that neither the log nor
// Campaigns names is not seen. Give it the campaigns file's ids
// (ReadCampaignIDs) to find those.
type AdminLedger struct {
	// URL is the listener's base URL, as http://127.0.0.1:6060.
	URL string
	// Token is its bearer token (dspd -admin-token), "" when it has none.
	Token string
	// Campaigns are asked for beside the keys.
	Campaigns []string
	// Client makes the requests (nil: one with a 30 s timeout).
	Client *http.Client
}

// statsAnswer is /admin/stats' answer.
type statsAnswer struct {
	Campaign    string `json:"campaign"`
	Exchange    string `json:"exchange"`
	Day         string `json:"day"`
	Bids        *int64 `json:"bids"`
	Wins        *int64 `json:"wins"`
	SpendMicros *int64 `json:"spend_micros"`
	Error       string `json:"error"`
}

// DayStats implements Ledger. A campaign the listener knows nothing of
// (404 unknown_campaign) is absent; one it knows without counters is
// there with zeros.
func (a *AdminLedger) DayStats(ctx context.Context, day bidder.Day, keys []Key) (map[Key]bidder.DayStats, error) {
	base, err := url.Parse(strings.TrimSuffix(a.URL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("admin listener URL %q is not http://HOST:PORT", a.URL)
	}
	client := a.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	ask := slices.Clone(keys)
	for _, c := range a.Campaigns {
		ask = append(ask, Key{Campaign: c})
	}
	slices.SortFunc(ask, compareKeys)
	ask = slices.Compact(ask)
	out := make(map[Key]bidder.DayStats, len(ask))
	for _, k := range ask {
		st, ok, err := a.get(ctx, client, base, day, k)
		if err != nil {
			return nil, err
		}
		if ok {
			out[k] = st
		}
	}
	return out, nil
}

// get asks for one key's counters.
func (a *AdminLedger) get(ctx context.Context, client *http.Client, base *url.URL, day bidder.Day, k Key) (bidder.DayStats, bool, error) {
	q := url.Values{"campaign": {k.Campaign}, "day": {day.String()}}
	if k.Exchange != "" {
		q.Set("exchange", k.Exchange)
	}
	u := *base
	u.Path += "/admin/stats"
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return bidder.DayStats{}, false, fmt.Errorf("admin listener: %w", err)
	}
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return bidder.DayStats{}, false, fmt.Errorf("admin listener: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return bidder.DayStats{}, false, fmt.Errorf("admin listener: GET %s: %w", u.Redacted(), err)
	}
	var ans statsAnswer
	jerr := json.Unmarshal(body, &ans)
	switch {
	case resp.StatusCode == http.StatusNotFound && jerr == nil && ans.Error == "unknown_campaign":
		return bidder.DayStats{}, false, nil
	case resp.StatusCode == http.StatusUnauthorized:
		return bidder.DayStats{}, false, fmt.Errorf("admin listener: GET %s: 401: the admin listener wants its bearer token (dspd -admin-token)", u.Redacted())
	case resp.StatusCode != http.StatusOK:
		return bidder.DayStats{}, false, fmt.Errorf("admin listener: GET %s: %s: %s", u.Redacted(), resp.Status, strings.TrimSpace(string(body)))
	case jerr != nil || ans.Bids == nil || ans.Wins == nil || ans.SpendMicros == nil:
		return bidder.DayStats{}, false, fmt.Errorf("admin listener: GET %s: not the counters of /admin/stats: %q", u.Redacted(), body)
	case ans.Campaign != k.Campaign || ans.Exchange != k.Exchange || ans.Day != day.String():
		return bidder.DayStats{}, false, fmt.Errorf("admin listener: GET %s: answered for campaign %q, exchange %q, day %s",
			u.Redacted(), ans.Campaign, ans.Exchange, ans.Day)
	}
	return bidder.DayStats{Bids: *ans.Bids, Wins: *ans.Wins, Spend: bidder.Micros(*ans.SpendMicros)}, true, nil
}

// compareKeys orders keys by campaign, the all-exchanges key first.
func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Campaign, b.Campaign); c != 0 {
		return c
	}
	return strings.Compare(a.Exchange, b.Exchange)
}
