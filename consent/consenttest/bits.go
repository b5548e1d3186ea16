package consenttest

import "slices"

// bitWriter builds a bit string field by field: big-endian, left to right.
type bitWriter struct {
	bits []byte // one 0 or 1 per bit

	allRanges bool // write a single-id range entry as a range from the id to itself
}

func (w *bitWriter) int(v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		w.bits = append(w.bits, byte(v>>i)&1)
	}
}

func (w *bitWriter) bool(b bool) {
	if b {
		w.int(1, 1)
	} else {
		w.int(0, 1)
	}
}

// letters writes each letter in 6 bits, A (or a) = 0.
func (w *bitWriter) letters(s string) {
	for i := 0; i < len(s); i++ {
		w.int(uint64((s[i]|0x20)-'a'), 6)
	}
}

// idBits writes an n-bit field whose bit i-1 is set for each id i (purposes,
// special features, vendor bit fields).
func (w *bitWriter) idBits(ids []int, n int) {
	for i := 1; i <= n; i++ {
		w.bool(slices.Contains(ids, i))
	}
}

// fib writes v ≥ 1 as a Fibonacci code word (Zeckendorf, then a final 1).
func (w *bitWriter) fib(v int) {
	f := []int{1, 2}
	for f[len(f)-1] <= v {
		f = append(f, f[len(f)-1]+f[len(f)-2])
	}
	code := make([]byte, len(f))
	top := 0
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] <= v {
			code[i] = 1
			v -= f[i]
			top = max(top, i)
		}
	}
	w.bits = append(w.bits, code[:top+1]...)
	w.bits = append(w.bits, 1)
}

// alphabet is base64url's (RFC 4648 section 5).
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// base64url pads the bits with zeros to a multiple of padTo (8 for TC
// strings, which are bytes; 6 for GPP, which the spec pads to a character)
// and writes 6 bits per character, without '=' padding.
func (w *bitWriter) base64url(padTo int) string {
	bits := slices.Clone(w.bits)
	for len(bits)%padTo != 0 || len(bits)%6 != 0 {
		bits = append(bits, 0)
	}
	out := make([]byte, 0, len(bits)/6)
	for i := 0; i < len(bits); i += 6 {
		v := 0
		for _, b := range bits[i : i+6] {
			v = v<<1 | int(b)
		}
		out = append(out, alphabet[v])
	}
	return string(out)
}

// Bits encodes a string of '0' and '1' characters (any other character is
// skipped, so that fields can be spaced out) as base64url, padded with zero
// bits to a whole character: the escape hatch for strings no field-by-field
// encoder writes, such as a GPP header whose Fibonacci code word has leading
// zeros.
func Bits(bits string) string {
	w := &bitWriter{}
	for i := 0; i < len(bits); i++ {
		switch bits[i] {
		case '0':
			w.int(0, 1)
		case '1':
			w.int(1, 1)
		}
	}
	return w.base64url(6)
}
