package console

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/recbid/dspd/managed"
)

// pageSize is how many campaigns a page of the list shows.
const pageSize = 50

type campaignsView struct {
	Rows          []campaignRow
	Total         int
	Page, Pages   int
	Sort, Dir     string
	Status, Q     string
	Headers       []header
	Prev, NextURL string
	Unreadable    bool // the books could not be read: counts shown as zero
}

type header struct {
	Label, Href, Class, AriaSort string
	Active                       bool
}

type campaignRow struct {
	ID, Advertiser, Status string
	Version                int64
	Href                   string
	Spent, Budget          int64 // micros of money
	HasBudget              bool
	BarWidth               string // of 100: the spend bar
	Over                   bool   // spend at or past 90% of the budget
	Bids, Wins             int64
	WinRate                float64 // -1: no bids
	Impressions, Clicks    int64
	Pacing                 float64 // -1: not paced
}

// columns of the list: key, label, whether it is numeric, whether a
// narrow window hides it.
var columns = []struct {
	key, label string
	num, hide  bool
}{
	{"id", "Campaign", false, false}, {"status", "Status", false, false}, {"spend", "Spend today / budget", true, false},
	{"bids", "Bids", true, true}, {"wins", "Wins", true, false}, {"winrate", "Win rate", true, true},
	{"impressions", "Impr.", true, true}, {"clicks", "Clicks", true, true}, {"pacing", "Pacing", true, true},
}

// campaignsPage serves the campaigns list: ?status=&q=&sort=&dir=&page=.
func (c *console) campaignsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := &campaignsView{Sort: q.Get("sort"), Dir: q.Get("dir"), Status: q.Get("status"), Q: q.Get("q")}
	if v.Status != "active" && v.Status != "paused" {
		v.Status = ""
	}
	if v.Sort == "" {
		v.Sort = "id"
	}
	if v.Dir != "desc" {
		v.Dir = "asc"
	}
	items, _ := c.cfg.Set.List(managed.Filter{Status: v.Status, Q: v.Q})
	day := c.cfg.Core.Today()
	cat := c.cfg.Core.Catalog()
	for _, it := range items {
		row := campaignRow{ID: it.ID, Advertiser: it.Advertiser, Status: it.Status, Version: it.Version,
			Href: Prefix + "/campaigns/" + url.PathEscape(it.ID), WinRate: -1, Pacing: -1}
		st, _, err := c.cfg.Core.Stats(r.Context(), it.ID, "", day)
		if err != nil {
			v.Unreadable = true
		}
		row.Bids, row.Wins, row.Spent = st.Bids, st.Wins, int64(st.Spend)/1000
		if st.Bids > 0 {
			row.WinRate = float64(st.Wins) / float64(st.Bids)
		}
		if camp, ok := cat.Campaign(it.ID); ok && camp.Limited() {
			row.HasBudget, row.Budget = true, int64(camp.DailyBudget)
			share := 1.0
			if row.Budget > 0 {
				share = min(1, float64(row.Spent)/float64(row.Budget))
			}
			row.BarWidth, row.Over = strconv.FormatFloat(share*100, 'f', 1, 64), share >= 0.9
		}
		if p, ok := c.cfg.Core.Pacing(it.ID); ok {
			row.Pacing = p.Rate
		}
		t := c.cfg.Core.Tally().Read(it.ID, day)
		row.Impressions, row.Clicks = t.Impressions, t.Clicks
		v.Rows = append(v.Rows, row)
	}
	sortRows(v.Rows, v.Sort, v.Dir == "desc")
	v.Total = len(v.Rows)
	v.Pages = max(1, (v.Total+pageSize-1)/pageSize)
	v.Page, _ = strconv.Atoi(q.Get("page"))
	v.Page = min(max(v.Page, 1), v.Pages)
	lo := (v.Page - 1) * pageSize
	v.Rows = v.Rows[lo:min(lo+pageSize, v.Total)]
	link := func(sort, dir string, page int) string {
		u := url.Values{}
		for k, val := range map[string]string{"status": v.Status, "q": v.Q, "sort": sort, "dir": dir} {
			if val != "" {
				u.Set(k, val)
			}
		}
		if page > 1 {
			u.Set("page", strconv.Itoa(page))
		}
		return Prefix + "/?" + u.Encode()
	}
	for _, col := range columns {
		h := header{Label: col.label, Active: col.key == v.Sort}
		dir := "asc"
		if col.num {
			dir = "desc" // numbers: the largest first
		}
		if h.Active {
			h.AriaSort = map[string]string{"asc": "ascending", "desc": "descending"}[v.Dir]
			dir = map[string]string{"asc": "desc", "desc": "asc"}[v.Dir]
		}
		h.Href = link(col.key, dir, 1)
		if col.num {
			h.Class = "num"
		}
		if col.hide {
			h.Class += " wide"
		}
		v.Headers = append(v.Headers, h)
	}
	if v.Page > 1 {
		v.Prev = link(v.Sort, v.Dir, v.Page-1)
	}
	if v.Page < v.Pages {
		v.NextURL = link(v.Sort, v.Dir, v.Page+1)
	}
	d := pageData{Title: "Campaigns", Nav: "campaigns", Campaigns: v, Day: day.String()}
	if q.Get("saved") != "" {
		d.Flash = "Saved: " + q.Get("saved")
	}
	c.render(w, r, http.StatusOK, "campaigns", d)
}

// sortRows sorts by a column, ties by id.
func sortRows(rows []campaignRow, key string, desc bool) {
	by := map[string]func(a, b campaignRow) int{
		"status":      func(a, b campaignRow) int { return strings.Compare(a.Status, b.Status) },
		"spend":       func(a, b campaignRow) int { return cmp.Compare(a.Spent, b.Spent) },
		"bids":        func(a, b campaignRow) int { return cmp.Compare(a.Bids, b.Bids) },
		"wins":        func(a, b campaignRow) int { return cmp.Compare(a.Wins, b.Wins) },
		"winrate":     func(a, b campaignRow) int { return cmp.Compare(a.WinRate, b.WinRate) },
		"impressions": func(a, b campaignRow) int { return cmp.Compare(a.Impressions, b.Impressions) },
		"clicks":      func(a, b campaignRow) int { return cmp.Compare(a.Clicks, b.Clicks) },
		"pacing":      func(a, b campaignRow) int { return cmp.Compare(a.Pacing, b.Pacing) },
	}[key]
	slices.SortStableFunc(rows, func(a, b campaignRow) int {
		n := 0
		if by != nil {
			n = by(a, b)
		}
		if n == 0 {
			n = strings.Compare(a.ID, b.ID)
		}
		if desc {
			return -n
		}
		return n
	})
}

// exchangesView is the exchanges page.
type exchangesView struct {
	Since string
	Rows  []exchangeRow
}

type exchangeRow struct {
	ID, Pricing                             string
	Open                                    bool
	Requests, Bids, NoBids, Rejected        int64
	RefusedSource, RefusedToken, Wins, Dups int64
	Spent                                   int64 // micros of money
	TopReasons                              string
}

// exchangesPage serves today's traffic by exchange.
func (c *console) exchangesPage(w http.ResponseWriter, r *http.Request) {
	day, since, list := c.cfg.Core.ExchangeStats()
	v := &exchangesView{Since: when(since)}
	for _, e := range list {
		row := exchangeRow{ID: e.ID, Pricing: e.Pricing, Open: e.Open, Requests: e.Requests, Bids: e.Bids, NoBids: e.NoBids,
			Rejected: e.Rejected, RefusedSource: e.Refused["source"], RefusedToken: e.Refused["token"], Wins: e.Wins,
			Dups: e.Duplicates, Spent: e.SpendMicros / 1000}
		type kv struct {
			k string
			n int64
		}
		var rs []kv
		for k, n := range e.NoBidReasons {
			rs = append(rs, kv{k, n})
		}
		slices.SortFunc(rs, func(a, b kv) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.k, b.k)) })
		var parts []string
		for i, x := range rs {
			if i == 3 {
				break
			}
			parts = append(parts, x.k+" "+num(x.n))
		}
		row.TopReasons = strings.Join(parts, ", ")
		v.Rows = append(v.Rows, row)
	}
	c.render(w, r, http.StatusOK, "exchanges", pageData{Title: "Exchanges", Nav: "exchanges", Exchanges: v, Day: day.String()})
}
