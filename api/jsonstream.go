package api

import "github.com/recbid/dspd/internal/jsoncodec"

// writeString appends any UTF-8 string to w with the contract's minimal
// escaping (json-iterator's own differs for \b and \f).
func writeString(w jsoncodec.Writer, s string) { w.SetBytes(appendJSONString(w.Bytes(), s)) }
