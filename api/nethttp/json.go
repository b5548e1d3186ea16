package nethttp

import (
	"net/http"

	"github.com/recbid/dspd/api"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// WriteJSON answers status with a JSON body.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteError answers status {"error":code,"field":field,"message":message}.
func WriteError(w http.ResponseWriter, status int, code, field, message string) {
	jw := jsoncodec.NewWriter()
	defer jw.Free()
	api.AppendError(jw, code, field, message)
	WriteJSON(w, status, jw.Bytes())
}
