package jsoncodec

import (
	"testing"

	"github.com/valyala/fastjson"
)

// The candidates the issue named, walked the same way as scanAll: a
// reusable-parser library (valyala/fastjson, which parses the whole
// document into a tree it keeps between calls, then is walked). The
// encoding/json/v2 candidate, which this Go ships only behind
// GOEXPERIMENT=jsonv2, is in candidates_jsonv2_bench_test.go.
//
// The benchmark is the evidence for the hand-written Scanner: it is kept
// only while it beats these.

func fastjsonAll(v *fastjson.Value, buf []byte, keys *int) []byte {
	switch v.Type() {
	case fastjson.TypeString:
		buf = append(buf[:0], v.GetStringBytes()...)
	case fastjson.TypeNumber:
		buf = v.MarshalTo(buf[:0])
	case fastjson.TypeObject:
		o, _ := v.Object()
		o.Visit(func(key []byte, v *fastjson.Value) {
			if string(key) == "id" {
				*keys++
			}
			buf = fastjsonAll(v, buf, keys)
		})
	case fastjson.TypeArray:
		a, _ := v.Array()
		for _, e := range a {
			buf = fastjsonAll(e, buf, keys)
		}
	}
	return buf
}

func BenchmarkWalkFastjson(b *testing.B) {
	buf := make([]byte, 0, 256)
	var p fastjson.Parser
	benchWalk(b, func(b *testing.B, doc []byte) int {
		v, err := p.ParseBytes(doc)
		if err != nil {
			b.Fatal(err)
		}
		keys := 0
		buf = fastjsonAll(v, buf, &keys)
		return keys
	})
}
