package nativead

import (
	"bytes"
	"encoding/json"
	"testing"
)

// compact returns doc without blanks, as exchanges send it.
func compact(doc string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(doc)); err != nil {
		panic(err)
	}
	return b.String()
}

// The typical request: section 6.1's five assets, compact, as a JSON
// string, as OpenRTB 2.x sends it; a creative that fits it.
func benchSetup(b *testing.B) (data []byte, cr Creative, pc *PreparedCreative, click, imp []byte) {
	cr = testCreative()
	return asString(compact(sample61)), cr, Prepare(&cr),
		AppendEscaped(nil, "https://dsp.example/dsp/click?b=0123456789abcdef&t=1700000000&c=c1&r=r1&s=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
		AppendEscaped(nil, "https://dsp.example/dsp/imp?b=0123456789abcdef&t=1700000000&c=c1&r=r1&s=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
}

func BenchmarkParseRequest(b *testing.B) {
	data, _, _, _, _ := benchSetup(b)
	var r Request
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if ParseRequest(data, &r) != nil {
			b.Fatal("refused")
		}
	}
}

func BenchmarkParseRequestObject(b *testing.B) {
	data := []byte(compact(sample61))
	var r Request
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if ParseRequest(data, &r) != nil {
			b.Fatal("refused")
		}
	}
}

func BenchmarkFit(b *testing.B) {
	data, _, pc, _, _ := benchSetup(b)
	var r Request
	if ParseRequest(data, &r) != nil {
		b.Fatal("refused")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := pc.Fit(&r); !ok {
			b.Fatal("no fit")
		}
	}
}

func BenchmarkAppendResponse(b *testing.B) {
	data, cr, pc, click, imp := benchSetup(b)
	var r Request
	if ParseRequest(data, &r) != nil {
		b.Fatal("refused")
	}
	p, _ := pc.Fit(&r)
	dst := make([]byte, 0, 4096)
	b.Run("prepared", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dst = pc.AppendResponse(dst[:0], &p, click, imp)
		}
		b.SetBytes(int64(len(dst)))
	})
	b.Run("creative", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dst = AppendResponse(dst[:0], &p, &cr, click, imp)
		}
		b.SetBytes(int64(len(dst)))
	})
}

// BenchmarkBid is the whole of a native impression's part: parse, fit,
// answer.
func BenchmarkBid(b *testing.B) {
	data, _, pc, click, imp := benchSetup(b)
	var r Request
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		if ParseRequest(data, &r) != nil {
			b.Fatal("refused")
		}
		p, ok := pc.Fit(&r)
		if !ok {
			b.Fatal("no fit")
		}
		dst = pc.AppendResponse(dst[:0], &p, click, imp)
	}
}
