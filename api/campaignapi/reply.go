package campaignapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/managed"
)

// The API's error codes, beside the core's.
const (
	codeInvalidCampaign  = "invalid_campaign"      // 400, with problems
	codeUnknownCampaign  = "unknown_campaign"      // 404
	codeCampaignExists   = "campaign_exists"       // 409
	codeMissingIfMatch   = "precondition_required" // 428
	codePreconditionFail = "precondition_failed"   // 412
	codeTooLarge         = "body_too_large"        // 413
	codeUnavailable      = "state_unavailable"     // 503
	codeNotServed        = "not_served"            // 503: committed, not yet served here
)

type errorBody struct {
	Error    string                `json:"error"`
	Message  string                `json:"message"`
	Problems []bidder.FieldProblem `json:"problems,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, http.StatusInternalServerError, api.CodeInternal, "the answer could not be encoded")
		return
	}
	w.Header().Set("Content-Type", api.JSONMediaType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, errorBody{Error: code, Message: message})
}

// writeChangeError answers a change the managed set refused.
func writeChangeError(w http.ResponseWriter, err error) {
	var inv *managed.InvalidError
	var stale *managed.StaleError
	switch {
	case errors.As(err, &inv):
		writeJSON(w, http.StatusBadRequest, errorBody{Error: codeInvalidCampaign,
			Message: strconv.Itoa(len(inv.Problems)) + " problem(s); nothing was changed", Problems: inv.Problems})
	case errors.As(err, &stale):
		w.Header().Set("ETag", versionTag(stale.Have))
		writeError(w, http.StatusPreconditionFailed, codePreconditionFail,
			"the campaign changed since it was read (it is at version "+strconv.FormatInt(stale.Have, 10)+"): read it again, then change it")
	case errors.Is(err, managed.ErrNotFound):
		writeError(w, http.StatusNotFound, codeUnknownCampaign, "no such campaign")
	case errors.Is(err, managed.ErrExists), errors.Is(err, managed.ErrConflict):
		writeError(w, http.StatusConflict, codeCampaignExists, "a campaign has this id already")
	case errors.Is(err, managed.ErrRevChanged):
		writeError(w, http.StatusPreconditionFailed, codePreconditionFail, "the campaign set changed since it was read: export it again")
	case errors.Is(err, managed.ErrNotServed):
		writeError(w, http.StatusServiceUnavailable, codeNotServed, "the change is committed but this dspd could not serve it yet (see its log)")
	default:
		writeError(w, http.StatusServiceUnavailable, codeUnavailable, "the state could not be written; nothing was changed; retry")
	}
}

// readBody reads a request's body up to limit bytes; false (answered 413
// or 400) when it is longer or cannot be read.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, codeTooLarge, "the body is over "+strconv.FormatInt(limit, 10)+" bytes")
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_body", "the body could not be read")
		return nil, false
	case int64(len(b)) > limit:
		writeError(w, http.StatusRequestEntityTooLarge, codeTooLarge, "the body is over "+strconv.FormatInt(limit, 10)+" bytes")
		return nil, false
	}
	return b, true
}

// versionTag is a campaign version's ETag, setTag the set's.
func versionTag(v int64) string { return `"` + strconv.FormatInt(v, 10) + `"` }

func setTag(rev int64) string { return `"r` + strconv.FormatInt(rev, 10) + `"` }

// ifMatch reads the If-Match header as the one entity tag a change names:
// false (answered 428) when there is none. A weak tag or * never matches:
// a change names the version it was made from.
func ifMatch(w http.ResponseWriter, r *http.Request, parse func(string) (int64, bool)) (int64, bool) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" || h == "*" {
		writeError(w, http.StatusPreconditionRequired, codeMissingIfMatch,
			"a change needs If-Match with the ETag it was read with, so that it cannot overwrite someone else's")
		return 0, false
	}
	for _, tag := range strings.Split(h, ",") {
		if v, ok := parse(strings.TrimSpace(tag)); ok {
			return v, true
		}
	}
	return -1, true // matches nothing: 412 from the version check
}

func parseVersionTag(tag string) (int64, bool) {
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return 0, false
	}
	v, err := strconv.ParseInt(tag[1:len(tag)-1], 10, 64)
	return v, err == nil && v > 0
}

func parseSetTag(tag string) (int64, bool) {
	if len(tag) < 4 || tag[0] != '"' || tag[1] != 'r' || tag[len(tag)-1] != '"' {
		return 0, false
	}
	v, err := strconv.ParseInt(tag[2:len(tag)-1], 10, 64)
	return v, err == nil && v >= 0
}
