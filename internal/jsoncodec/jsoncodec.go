// Package jsoncodec is the project's only door to json-iterator, which is
// archived upstream: every JSON byte dspd decodes or encodes on a hot path
// goes through here, so the library can be swapped in this package alone.
//
// The configuration is encoding/json-compatible in what it accepts and
// never uses ConfigFastest, which rounds floats.
//
// Reading a request by hand (OpenRTB) goes through Scanner, written here
// because the benchmark proves it: on post.json a walk of every value takes
// Scanner about 1.0 µs with no allocation, valyala/fastjson's reusable
// parser 2.7 µs, json-iterator's Iterator 4.1 µs with 41 allocations (one
// per object key), and encoding/json/v2's jsontext (GOEXPERIMENT=jsonv2 in
// this Go) 5.7 µs (BenchmarkWalk, BenchmarkWalkFastjson,
// BenchmarkWalkJSONText). Iterator, over json-iterator, stays in the
// tests (iterator_ref_test.go) as the reference the parity tests and
// FuzzScannerParity hold Scanner to.
package jsoncodec

import jsoniter "github.com/json-iterator/go"

var config = jsoniter.Config{
	EscapeHTML:             false,
	SortMapKeys:            true,
	ValidateJsonRawMessage: true,
}.Froze()

// Unmarshal decodes data into v as encoding/json.Unmarshal does: struct
// tags, json.Unmarshaler and json.RawMessage are honoured.
func Unmarshal(data []byte, v any) error { return config.Unmarshal(data, v) }

// Writer is a pooled, growable output buffer for JSON text. Free returns
// it to the pool; its bytes must not be used after that.
type Writer struct{ s *jsoniter.Stream }

// NewWriter borrows a Writer from the pool.
func NewWriter() Writer { return Writer{config.BorrowStream(nil)} }

// Free returns the writer to its pool.
func (w Writer) Free() { config.ReturnStream(w.s) }

// Raw appends bytes that are already JSON.
func (w Writer) Raw(b []byte) { _, _ = w.s.Write(b) }

// RawString appends a string that is already JSON.
func (w Writer) RawString(s string) { w.s.WriteRaw(s) }

// ASCIIString appends s as a JSON string, escaping '"' and '\'. s must be
// printable ASCII: other bytes would be escaped in the library's own way.
func (w Writer) ASCIIString(s string) { w.s.WriteString(s) }

// Bytes returns what was written so far.
func (w Writer) Bytes() []byte { return w.s.Buffer() }

// SetBytes replaces the buffer, for callers that append with their own
// encoders: w.SetBytes(appendX(w.Bytes(), …)).
func (w Writer) SetBytes(b []byte) { w.s.SetBuffer(b) }
