package consent

// b64Invalid marks a byte that is not in the base64url alphabet.
const b64Invalid = 0xff

// b64Value maps a base64url character (RFC 4648 §5, as TC and GPP strings
// are written) to its 6 bits, and every other byte to b64Invalid.
var b64Value = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range t {
		t[i] = b64Invalid
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// bitReader reads big-endian bit fields from base64url text without
// decoding it first. Fields at known places are read with at, which looks
// up only the characters that hold the field; fields in sequence with read,
// which keeps up to 64 bits of the text in a window, so that walking a long
// run of range entries looks up each character once. Its text must hold
// only base64url characters (validBase64). Every read is bounds-checked
// against end: a read past it returns 0 and marks the reader failed, and
// every later read then fails too, so a caller can read several fields and
// check once.
type bitReader struct {
	s      string
	end    int  // bits that may be read: at most 6*len(s)
	failed bool // a read went past end, or its caller found a field malformed

	// The window: the characters before next have been loaded, and the
	// last nwin bits loaded, the low bits of win, are still to be read.
	next int
	win  uint64
	nwin int
}

// newBitReader reads every bit of s (base64url text).
func newBitReader(s string) bitReader { return bitReader{s: s, end: 6 * len(s)} }

// offset is the position of the next bit read returns.
func (r *bitReader) offset() int { return 6*r.next - r.nwin }

// read returns the next n-bit field (n ≤ 32), or 0 past end.
func (r *bitReader) read(n int) uint32 {
	if r.failed || n < 0 || n > 32 || n > r.end-r.offset() || r.end > 6*len(r.s) {
		r.failed = true
		return 0
	}
	if r.nwin < n {
		// Load characters while the window has room for 6 more bits: at
		// least 59 bits, so n ≤ 32 are there (the end check above says the
		// text holds them). In locals, which the loop keeps in registers.
		s, next, win, nwin := r.s, r.next, r.win, r.nwin
		if nwin <= 16 && next+8 <= len(s) { // eight characters at once, looked up independently
			c := s[next : next+8]
			win = win<<48 | (uint64(b64Value[c[0]]&0x3f)<<42 | uint64(b64Value[c[1]]&0x3f)<<36 |
				uint64(b64Value[c[2]]&0x3f)<<30 | uint64(b64Value[c[3]]&0x3f)<<24) |
				(uint64(b64Value[c[4]]&0x3f)<<18 | uint64(b64Value[c[5]]&0x3f)<<12 |
					uint64(b64Value[c[6]]&0x3f)<<6 | uint64(b64Value[c[7]]&0x3f))
			next += 8
			nwin += 48
		}
		for ; nwin <= 58 && next < len(s); next++ {
			win = win<<6 | uint64(b64Value[s[next]]&0x3f)
			nwin += 6
		}
		r.next, r.win, r.nwin = next, win, nwin
	}
	r.nwin -= n
	return uint32(r.win >> r.nwin & (1<<n - 1))
}

// bits reads the next n-bit field (n ≤ 32); ok is false past end.
func (r *bitReader) bits(n int) (v uint32, ok bool) {
	v = r.read(n)
	return v, !r.failed
}

// seek moves the next read to bit pos; it is false, and the reader failed,
// past end.
func (r *bitReader) seek(pos int) bool {
	if r.failed || pos < 0 || pos > r.end || r.end > 6*len(r.s) {
		r.failed = true
		return false
	}
	r.next, r.win, r.nwin = pos/6, 0, 0
	if skip := pos % 6; skip != 0 { // pos < end: the character is there
		r.win = uint64(b64Value[r.s[r.next]] & 0x3f)
		r.next++
		r.nwin = 6 - skip
	}
	return true
}

// skip moves past n bits; it is false, and the reader failed, past end.
func (r *bitReader) skip(n int) bool {
	if n < 0 || n > r.end-r.offset() {
		r.failed = true
		return false
	}
	return r.seek(r.offset() + n)
}

// validBase64 reports whether s holds only base64url characters. A TC
// string is checked whole before it is read, so this is on every request's
// path: it tests eight characters at a time, without a branch per
// character, and the last few with the table.
//
// For a byte b below 0x80, b + 0x80 - lo has its top bit set exactly when
// b ≥ lo, and does not carry into the next byte; so "lo ≤ b ≤ hi" is two
// additions for eight bytes at once. A byte of 0x80 or more fails the word
// by its own top bit (its carries may spoil its neighbours' tests, which
// no longer matter).
func validBase64(s string) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	var bad uint64 // top bit of a byte: some byte was not base64url
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		s = s[8:]
		lower := w | 0x20*ones // A–Z to a–z; nothing else lands in a–z
		letters := (lower + (0x80-'a')*ones) &^ (lower + (0x7f-'z')*ones)
		digits := (w + (0x80-'0')*ones) &^ (w + (0x7f-'9')*ones)
		dashes := (w + (0x80-'-')*ones) &^ (w + (0x7f-'-')*ones)
		underscores := (w + (0x80-'_')*ones) &^ (w + (0x7f-'_')*ones)
		bad |= w | ^(letters | digits | dashes | underscores)
	}
	for i := 0; i < len(s); i++ {
		bad |= uint64(b64Value[s[i]]) // b64Invalid has its top bit set
	}
	return bad&tops == 0
}

// at returns the n-bit field (0 ≤ n ≤ 24) at bit pos, without moving the
// reader; ok is false, and the reader failed, past end.
func (r *bitReader) at(pos, n int) (v uint32, ok bool) {
	if r.failed || n < 0 || n > 24 || pos < 0 || pos > r.end-n || r.end > 6*len(r.s) {
		r.failed = true
		return 0, false
	}
	// The field lies in the five characters from pos/6 (30 bits: pos%6 ≤
	// 5 bits before it, n ≤ 24 in it); fewer at the end of the text.
	i, skip := pos/6, pos%6
	if i+5 <= len(r.s) {
		c := r.s[i : i+5]
		acc := uint32(b64Value[c[0]]&0x3f)<<24 | uint32(b64Value[c[1]]&0x3f)<<18 |
			uint32(b64Value[c[2]]&0x3f)<<12 | uint32(b64Value[c[3]]&0x3f)<<6 | uint32(b64Value[c[4]]&0x3f)
		return acc >> (30 - skip - n) & (1<<n - 1), true
	}
	var acc uint64
	got := -skip // bits loaded from pos on
	for got < n {
		acc = acc<<6 | uint64(b64Value[r.s[i]]&0x3f)
		i++
		got += 6
	}
	return uint32(acc >> (got - n) & (1<<n - 1)), true
}

// fibonacci numbers F(2), F(3), …: the weight of each bit of a Fibonacci
// code word, up to the largest a 16-bit value can need.
var fibonacci = [...]uint32{1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597,
	2584, 4181, 6765, 10946, 17711, 28657, 46368}

// fib reads a Fibonacci-coded integer (GPP's Int(Fibonacci): bit i weighs
// F(i+2), the code ends at the first "11"). ok is false past the end, or for
// a code word longer than a 16-bit value needs, so that a hostile string
// costs at most 24 bits of work.
func (r *bitReader) fib() (v uint32, ok bool) {
	prev := uint32(0)
	for i := 0; i <= len(fibonacci); i++ {
		b, ok := r.bits(1)
		if !ok {
			return 0, false
		}
		if b == 1 && prev == 1 {
			return v, v <= 0xffff
		}
		if b == 1 {
			if i == len(fibonacci) {
				return 0, false
			}
			v += fibonacci[i]
		}
		prev = b
	}
	return 0, false
}
