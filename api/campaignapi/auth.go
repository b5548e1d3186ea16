package campaignapi

import (
	"context"
	"mime"
	"net/http"
	"strings"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/api/tokens"
)

type ctxKey struct{}

// Caller returns the holder of the token a request was authenticated with.
func Caller(ctx context.Context) (tokens.Token, bool) {
	t, ok := ctx.Value(ctxKey{}).(tokens.Token)
	return t, ok
}

// WithCaller returns ctx carrying the caller (the console authenticates
// by its session, then calls the same rules).
func WithCaller(ctx context.Context, t tokens.Token) context.Context {
	return context.WithValue(ctx, ctxKey{}, t)
}

// Authenticate lets a request through with Authorization: Bearer TOKEN of
// a token in the file, and 401 otherwise.
func Authenticate(file *tokens.File) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			t, ok := tokens.Token{}, false
			if strings.EqualFold(scheme, "Bearer") {
				t, ok = file.Find(strings.TrimSpace(tok))
			}
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="dspd api"`)
				writeError(w, http.StatusUnauthorized, "unauthorized", "the API needs a token of -api-tokens: Authorization: Bearer …")
				return
			}
			next.ServeHTTP(w, r.WithContext(WithCaller(r.Context(), t)))
		})
	}
}

// RequireWrite lets through only a caller whose role may change the set:
// 403 for a read token.
func RequireWrite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t, _ := Caller(r.Context()); !t.Role.Allows(tokens.Write) {
			writeError(w, http.StatusForbidden, api.CodeForbidden, "the token "+t.Name+" may read, not write")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireJSON lets through a body of JSON (or a JSON merge patch), 415
// otherwise.
func requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || (mt != api.JSONMediaType && !(r.Method == http.MethodPatch && mt == MergePatchMediaType)) {
			writeError(w, http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType,
				"the body must be JSON: Content-Type: application/json (or application/merge-patch+json for PATCH)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// MergePatchMediaType is RFC 7396's media type.
const MergePatchMediaType = "application/merge-patch+json"
