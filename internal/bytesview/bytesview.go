// Package bytesview is the one place dspd views bytes as a string, or a
// string as bytes, without copying: the hot paths read request bytes as
// strings (the form parser's values, fasthttp's headers, JSON numbers)
// and hash or compare strings as bytes. A view is valid only while the
// memory under it is neither changed nor reused.
package bytesview

import "unsafe"

// String views b as a string. b must not change while the string is in
// use: the caller keeps it only until b's buffer is reused.
func String(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Bytes views s as bytes, which the caller must only read.
func Bytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
