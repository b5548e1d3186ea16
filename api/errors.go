package api

import "github.com/recbid/dspd/internal/jsoncodec"

// The error codes of the contract, and this server's own additions. The
// exported ones are answered by the admin listener and the front ends too.
const (
	errBadBody               = "bad_body"
	CodeMissingField         = "missing_field"
	CodeInvalidField         = "invalid_field"
	CodeMethodNotAllowed     = "method_not_allowed"
	errBodyTooLarge          = "body_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	errUnknownBid            = "unknown_bid"
	CodeBadQuery             = "bad_query"         // win notice query is not valid url-encoding
	errNotFound              = "not_found"         // no such route
	errStateUnavailable      = "state_unavailable" // the books could not be written: retry later
	CodeForbidden            = "forbidden"         // the exchange does not let this client ask for bids
	CodeInternal             = "internal_error"    // a panic, recovered
)

// AppendError writes {"error":code,"field":field,"message":message}.
func AppendError(jw jsoncodec.Writer, code, field, message string) {
	jw.RawString(`{"error":`)
	jw.String(code)
	jw.RawString(`,"field":`)
	jw.String(field)
	jw.RawString(`,"message":`)
	jw.String(message)
	jw.RawString("}")
}
