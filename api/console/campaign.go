package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/recbid/dspd/api/campaignapi"
	"github.com/recbid/dspd/managed"
)

type campaignView struct {
	ID, Advertiser, Status string
	Version                int64
	UpdatedAt, UpdatedBy   string
	Href                   string

	Bids, Wins          int64
	Spent, Budget       int64 // micros of money
	HasBudget           bool
	WinRate             float64
	Impressions, Clicks int64
	Pacing              float64
	Reasons             []reasonBar
	Spend, Rates        chart

	Form          settingsForm
	Problems      map[string]string // by form field
	OtherProblems []string          // of fields the form has no input for
	Document      string
	DocProblems   []string
	Stale         string
	Audit         []auditRow
}

// settingsForm is the settings form's values, as typed.
type settingsForm struct {
	Status, BidCPM, DailyBudget, Pacing, Start, End string
	FreqImpressions, FreqPeriodS, Deals             string
	OpenAuction                                     bool
}

type auditRow struct {
	At, Who, Action string
	Version         int64
}

// campaign returns the campaign the request's path names, or answers 404.
func (c *console) campaign(w http.ResponseWriter, r *http.Request) (managed.Doc, bool) {
	d, ok := c.cfg.Set.Get(campaignapi.IDParam(r))
	if !ok {
		http.Error(w, "no such campaign", http.StatusNotFound)
	}
	return d, ok
}

// campaignPage serves one campaign: its numbers, charts and forms.
func (c *console) campaignPage(w http.ResponseWriter, r *http.Request) {
	d, ok := c.campaign(w, r)
	if !ok {
		return
	}
	id := d.ID
	v := c.campaignView(r, d)
	v.Form = formOf(d.JSON)
	pd := pageData{Title: id, Nav: "campaigns", Campaign: v, Day: c.cfg.Core.Today().String()}
	if r.URL.Query().Get("saved") != "" {
		pd.Flash = "Saved: version " + strconv.FormatInt(d.Version, 10)
	}
	c.render(w, r, http.StatusOK, "campaign", pd)
}

// campaignView reads a campaign's numbers and audit.
func (c *console) campaignView(r *http.Request, d managed.Doc) *campaignView {
	var m struct {
		Advertiser string `json:"advertiser"`
		Status     string `json:"status"`
	}
	_ = json.Unmarshal(d.JSON, &m)
	v := &campaignView{ID: d.ID, Advertiser: m.Advertiser, Status: m.Status, Version: d.Version, UpdatedAt: when(d.At),
		UpdatedBy: d.By, Href: Prefix + "/campaigns/" + url.PathEscape(d.ID), WinRate: -1, Pacing: -1, Problems: map[string]string{}}
	day := c.cfg.Core.Today()
	st, _, err := c.cfg.Core.Stats(r.Context(), d.ID, "", day)
	if err != nil {
		v.OtherProblems = append(v.OtherProblems, "The books could not be read: the counts show as zero.")
	}
	v.Bids, v.Wins, v.Spent = st.Bids, st.Wins, int64(st.Spend)/1000
	if st.Bids > 0 {
		v.WinRate = float64(st.Wins) / float64(st.Bids)
	}
	if camp, ok := c.cfg.Core.Catalog().Campaign(d.ID); ok && camp.Limited() {
		v.HasBudget, v.Budget = true, int64(camp.DailyBudget)
	}
	if p, ok := c.cfg.Core.Pacing(d.ID); ok {
		v.Pacing = p.Rate
	}
	t := c.cfg.Core.Tally().Read(d.ID, day)
	v.Impressions, v.Clicks, v.Reasons = t.Impressions, t.Clicks, reasonBars(t)
	now := c.cfg.Core.Now().UTC()
	minute := now.Hour()*60 + now.Minute() + 1
	v.Spend = spendChart(t, c.cfg.Core.PacingShares(), v.Budget, (minute+4)/5)
	v.Rates = rateChart(t, minute)
	v.Document = pretty(d.JSON)
	if entries, err := c.cfg.Set.Audit(r.Context(), d.ID, 10); err == nil {
		for _, a := range entries {
			v.Audit = append(v.Audit, auditRow{At: when(a.At), Who: a.Who, Action: string(a.Action), Version: a.Version})
		}
	}
	return v
}

func pretty(doc []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, doc, "", "  ") != nil {
		return string(doc)
	}
	return b.String()
}

// formOf reads a document's settings into the form.
func formOf(doc []byte) settingsForm {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(doc, &m)
	str := func(k string) string {
		var s string
		if json.Unmarshal(m[k], &s) == nil {
			return s
		}
		return strings.Trim(string(m[k]), `"`) // a number: its literal
	}
	f := settingsForm{Status: str("status"), BidCPM: str("bid_cpm"), DailyBudget: str("daily_budget"), Pacing: str("pacing"),
		Start: str("start"), End: str("end"), OpenAuction: true}
	if f.Pacing == "" {
		f.Pacing = "asap"
	}
	var fc map[string]json.RawMessage
	if json.Unmarshal(m["freq_cap"], &fc) == nil {
		f.FreqImpressions, f.FreqPeriodS = string(fc["impressions"]), string(fc["period_s"])
	}
	var deals []string
	if json.Unmarshal(m["deals"], &deals) == nil {
		f.Deals = strings.Join(deals, ", ")
	}
	if string(m["open_auction"]) == "false" {
		f.OpenAuction = false
	}
	return f
}

// formOfPost reads the settings form as posted.
func formOfPost(r *http.Request) settingsForm {
	p := r.PostForm
	return settingsForm{Status: p.Get("status"), BidCPM: strings.TrimSpace(p.Get("bid_cpm")),
		DailyBudget: strings.TrimSpace(p.Get("daily_budget")), Pacing: p.Get("pacing"), Start: strings.TrimSpace(p.Get("start")),
		End: strings.TrimSpace(p.Get("end")), FreqImpressions: strings.TrimSpace(p.Get("freq_impressions")),
		FreqPeriodS: strings.TrimSpace(p.Get("freq_period_s")), Deals: p.Get("deals"), OpenAuction: p.Get("open_auction") == "true"}
}

// literal is a number as typed: its JSON literal when it is one, else a
// JSON string (which the campaign's rules then name as not a number).
func literal(s string) json.RawMessage {
	if s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// patchOf is the merge patch that makes the document's settings the
// form's: only what changed, so that the fields the form does not show
// (targeting, creatives) and the literals it did not touch stay as they
// were.
func patchOf(old, now settingsForm) []byte {
	p := map[string]json.RawMessage{}
	null := json.RawMessage("null")
	if now.Status != old.Status {
		p["status"] = jsonString(now.Status)
	}
	if now.BidCPM != old.BidCPM {
		p["bid_cpm"] = literal(now.BidCPM)
	}
	if now.DailyBudget != old.DailyBudget {
		p["daily_budget"] = null // empty: no daily budget
		if now.DailyBudget != "" {
			p["daily_budget"] = literal(now.DailyBudget)
		}
	}
	if now.Pacing != old.Pacing {
		p["pacing"] = jsonString(now.Pacing)
	}
	for _, f := range []struct {
		key, old, now string
	}{{"start", old.Start, now.Start}, {"end", old.End, now.End}} {
		if f.now != f.old {
			p[f.key] = null
			if f.now != "" {
				p[f.key] = jsonString(f.now)
			}
		}
	}
	if now.FreqImpressions != old.FreqImpressions || now.FreqPeriodS != old.FreqPeriodS {
		p["freq_cap"] = null
		if now.FreqImpressions != "" || now.FreqPeriodS != "" {
			fc := map[string]json.RawMessage{}
			if now.FreqImpressions != "" {
				fc["impressions"] = literal(now.FreqImpressions)
			}
			if now.FreqPeriodS != "" {
				fc["period_s"] = literal(now.FreqPeriodS)
			}
			b, _ := json.Marshal(fc)
			p["freq_cap"] = b
		}
	}
	if now.Deals != old.Deals {
		var deals []string
		for _, d := range strings.Split(now.Deals, ",") {
			if d = strings.TrimSpace(d); d != "" {
				deals = append(deals, d)
			}
		}
		p["deals"] = null
		if len(deals) > 0 {
			b, _ := json.Marshal(deals)
			p["deals"] = b
		}
	}
	if now.OpenAuction != old.OpenAuction {
		p["open_auction"] = json.RawMessage(strconv.FormatBool(now.OpenAuction))
	}
	b, _ := json.Marshal(p)
	return b
}

// formField is the settings form's input a problem's field belongs to.
func formField(field string) (string, bool) {
	head, _, _ := strings.Cut(field, "[")
	switch head {
	case "status", "bid_cpm", "daily_budget", "pacing", "start", "end", "deals", "open_auction":
		return head, true
	case "freq_cap", "freq_cap.impressions":
		return "freq_impressions", true
	case "freq_cap.period_s":
		return "freq_period_s", true
	}
	return "", false
}

// version reads the form's version field: the one the page was made from.
func version(r *http.Request) int64 {
	v, _ := strconv.ParseInt(r.PostForm.Get("version"), 10, 64)
	return v
}

// saveSettings saves the settings form as a merge patch of what changed.
func (c *console) saveSettings(w http.ResponseWriter, r *http.Request) {
	cur, ok := c.campaign(w, r)
	if !ok {
		return
	}
	id := cur.ID
	// The page was made from the version posted: when it is still the
	// campaign's, its settings are the current ones; when not, the patch
	// is refused as stale whatever it holds.
	posted := formOfPost(r)
	_, err := c.cfg.Set.Patch(r.Context(), sessionOf(r).who.Name, id, version(r), patchOf(formOf(cur.JSON), posted))
	if err == nil {
		http.Redirect(w, r, Prefix+"/campaigns/"+url.PathEscape(id)+"?saved=1", http.StatusSeeOther)
		return
	}
	v := c.campaignView(r, cur)
	v.Form = posted
	status := c.explain(v, err, false)
	c.render(w, r, status, "campaign", pageData{Title: id, Nav: "campaigns", Campaign: v, Day: c.cfg.Core.Today().String()})
}

// saveDocument replaces the campaign with the document as edited.
func (c *console) saveDocument(w http.ResponseWriter, r *http.Request) {
	cur, ok := c.campaign(w, r)
	if !ok {
		return
	}
	id := cur.ID
	doc := r.PostForm.Get("document")
	_, err := c.cfg.Set.Replace(r.Context(), sessionOf(r).who.Name, id, version(r), []byte(doc))
	if err == nil {
		http.Redirect(w, r, Prefix+"/campaigns/"+url.PathEscape(id)+"?saved=1", http.StatusSeeOther)
		return
	}
	v := c.campaignView(r, cur)
	v.Form = formOf(cur.JSON)
	v.Document = doc
	status := c.explain(v, err, true)
	c.render(w, r, status, "campaign", pageData{Title: id, Nav: "campaigns", Campaign: v, Day: c.cfg.Core.Today().String()})
}

// explain puts a refused change's reasons on the page, next to their
// fields; it returns the page's status.
func (c *console) explain(v *campaignView, err error, doc bool) int {
	var inv *managed.InvalidError
	var stale *managed.StaleError
	switch {
	case errors.As(err, &inv):
		for _, p := range inv.Problems {
			text := p.Problem
			if f, ok := formField(p.Field); ok && !doc {
				if v.Problems[f] != "" {
					text = v.Problems[f] + "; " + text
				}
				v.Problems[f] = text
				continue
			}
			line := p.Problem
			if p.Field != "" {
				line = p.Field + ": " + p.Problem
			}
			if doc {
				v.DocProblems = append(v.DocProblems, line)
			} else {
				v.OtherProblems = append(v.OtherProblems, line)
			}
		}
		return http.StatusBadRequest
	case errors.As(err, &stale):
		v.Stale = "Someone changed this campaign while you edited it (it is now at version " +
			strconv.FormatInt(stale.Have, 10) + "). Nothing was saved: reload the page, then make your change again."
		return http.StatusConflict
	case errors.Is(err, managed.ErrNotServed):
		v.OtherProblems = append(v.OtherProblems, "The change is saved but this dspd could not serve it yet: see its log.")
		return http.StatusServiceUnavailable
	}
	v.OtherProblems = append(v.OtherProblems, "The state could not be written; nothing was saved. Try again.")
	return http.StatusServiceUnavailable
}

// setStatus pauses or resumes a campaign.
func (c *console) setStatus(w http.ResponseWriter, r *http.Request) {
	id := campaignapi.IDParam(r)
	status := r.PostForm.Get("status")
	if status != "active" && status != "paused" {
		http.Error(w, `status must be "active" or "paused"`, http.StatusBadRequest)
		return
	}
	back := localPath(r.PostForm.Get("back"))
	_, err := c.cfg.Set.Patch(r.Context(), sessionOf(r).who.Name, id, version(r), []byte(`{"status":"`+status+`"}`))
	var stale *managed.StaleError
	switch {
	case err == nil:
		sep := "?"
		if strings.Contains(back, "?") {
			sep = "&"
		}
		http.Redirect(w, r, back+sep+"saved="+url.QueryEscape(id+" "+status), http.StatusSeeOther)
	case errors.As(err, &stale):
		http.Error(w, "the campaign changed meanwhile: reload the page", http.StatusConflict)
	case errors.Is(err, managed.ErrNotFound):
		http.Error(w, "no such campaign", http.StatusNotFound)
	default:
		http.Error(w, "the change could not be saved: "+err.Error(), http.StatusServiceUnavailable)
	}
}
