package api

import (
	"net/http"

	"github.com/recbid/dspd/internal/jsoncodec"
)

// The error codes of the contract, and this server's own additions.
const (
	errBadBody              = "bad_body"
	errMissingField         = "missing_field"
	errInvalidField         = "invalid_field"
	errMethodNotAllowed     = "method_not_allowed"
	errBodyTooLarge         = "body_too_large"
	errUnsupportedMediaType = "unsupported_media_type"
	errUnknownBid           = "unknown_bid"
	errBadQuery             = "bad_query"         // win notice query is not valid url-encoding
	errNotFound             = "not_found"         // no such route
	errUnknownCampaign      = "unknown_campaign"  // /admin/stats of a campaign with no counters
	errInvalidCampaigns     = "invalid_campaigns" // reload rejected the file
	errReloadFailed         = "reload_failed"     // reload could not read the file
	errStateUnavailable     = "state_unavailable" // the books could not be written: retry later
	errForbidden            = "forbidden"         // the exchange does not let this client ask for bids
	errInvalidExchanges     = "invalid_exchanges" // reload rejected the exchanges file
	errInvalidRates         = "invalid_rates"     // reload rejected the currency rates file
	errInternal             = "internal_error"
)

// appendError writes {"error":code,"field":field,"message":message}.
func appendError(jw jsoncodec.Writer, code, field, message string) {
	jw.RawString(`{"error":`)
	writeString(jw, code)
	jw.RawString(`,"field":`)
	writeString(jw, field)
	jw.RawString(`,"message":`)
	writeString(jw, message)
	jw.RawString("}")
}

// writeError answers an admin request {"error":code,"field":field,"message":message}.
func writeError(w http.ResponseWriter, status int, code, field, message string) {
	jw := jsoncodec.NewWriter()
	defer jw.Free()
	appendError(jw, code, field, message)
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(status)
	_, _ = w.Write(jw.Bytes())
}
