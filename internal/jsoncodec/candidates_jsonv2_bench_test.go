//go:build goexperiment.jsonv2

package jsoncodec

import (
	"bytes"
	"encoding/json/jsontext"
	"io"
	"testing"
)

// encoding/json/v2's token reader (GOEXPERIMENT=jsonv2 go test -bench
// WalkJSONText), walked as scanAll walks: strings unquoted into a buffer,
// numbers copied. Every "id" string is counted, values as well as keys (the
// token reader does not tell them apart): the count only proves the walk
// read the document. One Decoder is kept and Reset.
func BenchmarkWalkJSONText(b *testing.B) {
	buf := make([]byte, 0, 256)
	var r bytes.Reader
	dec := jsontext.NewDecoder(&r)
	benchWalk(b, func(b *testing.B, doc []byte) int {
		r.Reset(doc)
		dec.Reset(&r)
		keys := 0
		for {
			var err error
			switch dec.PeekKind() {
			case '"':
				var v jsontext.Value
				if v, err = dec.ReadValue(); err == nil {
					if string(v) == `"id"` {
						keys++
					}
					buf, err = jsontext.AppendUnquote(buf[:0], v)
				}
			case '0':
				var v jsontext.Value
				if v, err = dec.ReadValue(); err == nil {
					buf = append(buf[:0], v...)
				}
			default:
				_, err = dec.ReadToken()
			}
			if err == io.EOF {
				return keys
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
