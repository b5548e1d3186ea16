package campaignapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/managed"
)

// listItem is one campaign of GET /api/v1/campaigns.
type listItem struct {
	ID         string          `json:"id"`
	Version    int64           `json:"version"`
	Status     string          `json:"status"`
	Advertiser string          `json:"advertiser"`
	UpdatedAt  time.Time       `json:"updated_at"`
	UpdatedBy  string          `json:"updated_by"`
	Campaign   json.RawMessage `json:"campaign"`
}

// list serves GET /api/v1/campaigns?status=active|paused&q=TEXT.
func (h *handlers) list(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, api.CodeBadQuery, "the query is not valid url-encoding")
		return
	}
	f := managed.Filter{Status: q.Get("status"), Q: q.Get("q")}
	if f.Status != "" && f.Status != "active" && f.Status != "paused" {
		writeError(w, http.StatusBadRequest, api.CodeInvalidField, `status must be "active" or "paused"`)
		return
	}
	items, rev := h.cfg.Set.List(f)
	out := struct {
		Campaigns []listItem `json:"campaigns"`
		Count     int        `json:"count"`
		Rev       int64      `json:"rev"`
	}{Campaigns: make([]listItem, len(items)), Count: len(items), Rev: rev}
	for i, it := range items {
		out.Campaigns[i] = listItem{ID: it.ID, Version: it.Version, Status: it.Status, Advertiser: it.Advertiser,
			UpdatedAt: it.At, UpdatedBy: it.By, Campaign: it.JSON}
	}
	w.Header().Set("ETag", setTag(rev))
	writeJSON(w, http.StatusOK, out)
}

// get serves GET /api/v1/campaigns/{id}: the document, its version as ETag.
func (h *handlers) get(w http.ResponseWriter, r *http.Request) {
	d, ok := h.campaign(w, r)
	if !ok {
		return
	}
	writeDoc(w, http.StatusOK, d)
}

// writeDoc answers a campaign's document with its version and time.
func writeDoc(w http.ResponseWriter, status int, d managed.Doc) {
	w.Header().Set("ETag", versionTag(d.Version))
	w.Header().Set("Last-Modified", d.At.UTC().Format(http.TimeFormat))
	writeJSON(w, status, json.RawMessage(d.JSON))
}

// create serves POST /api/v1/campaigns: 201 with the campaign's URL.
func (h *handlers) create(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, bidder.MaxCampaignDocBytes)
	if !ok {
		return
	}
	t, _ := Caller(r.Context())
	d, err := h.cfg.Set.Create(r.Context(), t.Name, body)
	if err != nil {
		writeChangeError(w, err)
		return
	}
	w.Header().Set("Location", Prefix+"/campaigns/"+url.PathEscape(d.ID))
	writeDoc(w, http.StatusCreated, d)
}

// replace serves PUT /api/v1/campaigns/{id} with If-Match.
func (h *handlers) replace(w http.ResponseWriter, r *http.Request) {
	h.change(w, r, h.cfg.Set.Replace)
}

// patch serves PATCH /api/v1/campaigns/{id} (a JSON merge patch) with
// If-Match.
func (h *handlers) patch(w http.ResponseWriter, r *http.Request) {
	h.change(w, r, h.cfg.Set.Patch)
}

func (h *handlers) change(w http.ResponseWriter, r *http.Request, do func(ctx context.Context, who, id string, ifVersion int64, body []byte) (managed.Doc, error)) {
	id, ok := h.known(w, r)
	if !ok {
		return
	}
	v, ok := ifMatch(w, r, parseVersionTag)
	if !ok {
		return
	}
	body, ok := readBody(w, r, bidder.MaxCampaignDocBytes)
	if !ok {
		return
	}
	t, _ := Caller(r.Context())
	d, err := do(r.Context(), t.Name, id, v, body)
	if err != nil {
		writeChangeError(w, err)
		return
	}
	writeDoc(w, http.StatusOK, d)
}

// remove serves DELETE /api/v1/campaigns/{id} with If-Match: 204.
func (h *handlers) remove(w http.ResponseWriter, r *http.Request) {
	id, ok := h.known(w, r)
	if !ok {
		return
	}
	v, ok := ifMatch(w, r, parseVersionTag)
	if !ok {
		return
	}
	t, _ := Caller(r.Context())
	if _, err := h.cfg.Set.Delete(r.Context(), t.Name, id, v); err != nil {
		writeChangeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// importSet serves PUT /api/v1/campaigns: a whole campaigns file, with
// If-Match naming the set's revision (the ETag of the list or the export).
func (h *handlers) importSet(w http.ResponseWriter, r *http.Request) {
	rev, ok := ifMatch(w, r, parseSetTag)
	if !ok {
		return
	}
	body, ok := readBody(w, r, h.cfg.MaxImportBytes)
	if !ok {
		return
	}
	t, _ := Caller(r.Context())
	res, err := h.cfg.Set.Import(r.Context(), t.Name, rev, body)
	if err != nil {
		writeChangeError(w, err)
		return
	}
	w.Header().Set("ETag", setTag(res.Rev))
	writeJSON(w, http.StatusOK, struct {
		Created   int   `json:"created"`
		Replaced  int   `json:"replaced"`
		Deleted   int   `json:"deleted"`
		Unchanged int   `json:"unchanged"`
		Rev       int64 `json:"rev"`
	}{res.Created, res.Replaced, res.Deleted, res.Unchanged, res.Rev})
}

// export serves GET /api/v1/export: the set as a campaigns file.
func (h *handlers) export(w http.ResponseWriter, _ *http.Request) {
	file, rev := h.cfg.Set.Export()
	w.Header().Set("ETag", setTag(rev))
	w.Header().Set("Content-Disposition", `attachment; filename="campaigns.json"`)
	w.Header().Set("Content-Type", api.JSONMediaType)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(file)
}

// campaign returns the campaign the request's path names, or answers 404.
func (h *handlers) campaign(w http.ResponseWriter, r *http.Request) (managed.Doc, bool) {
	d, ok := h.cfg.Set.Get(IDParam(r))
	if !ok {
		writeError(w, http.StatusNotFound, codeUnknownCampaign, "no such campaign")
	}
	return d, ok
}

// known returns the id of the campaign the request's path names, or
// answers 404 when there is none.
func (h *handlers) known(w http.ResponseWriter, r *http.Request) (string, bool) {
	d, ok := h.campaign(w, r)
	return d.ID, ok
}
