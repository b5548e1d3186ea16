package bidder

// asciiLower returns s with ASCII letters lowered; other bytes are kept.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// equalFoldASCII compares two strings ignoring ASCII case.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// maxKeyLen bounds the values looked up in the index; longer values are
// rejected by validation before they get here.
const maxKeyLen = 256

// lookup finds s in a map whose keys are lowered, without allocating: a
// value with capitals is lowered into buf first.
func lookup(m map[string][]uint32, s string, buf *[maxKeyLen]byte) []uint32 {
	if s == "" || len(s) > maxKeyLen {
		return nil
	}
	lowered := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
			lowered = true
		}
		buf[i] = c
	}
	if !lowered {
		return m[s]
	}
	return m[string(buf[:len(s)])]
}

// nextItem splits the first item off a comma list, trimming spaces around
// it. Empty items are returned as "" and should be skipped.
func nextItem(list string) (item, rest string) {
	i := 0
	for i < len(list) && list[i] != ',' {
		i++
	}
	item = list[:i]
	if i < len(list) {
		rest = list[i+1:]
	}
	for len(item) > 0 && item[0] == ' ' {
		item = item[1:]
	}
	for len(item) > 0 && item[len(item)-1] == ' ' {
		item = item[:len(item)-1]
	}
	return item, rest
}

// forEachCatPrefix calls fn with every category that covers cat: cat itself
// and each of its prefixes that ends before a '-' ("IAB12-1" → "IAB12",
// "IAB12-1").
func forEachCatPrefix(cat string, fn func(string)) {
	for i := 0; i < len(cat); i++ {
		if cat[i] == '-' && i > 0 {
			fn(cat[:i])
		}
	}
	fn(cat)
}

// Covers reports whether category x covers category y: y equals x, or y
// starts with x followed by '-'. Case is ignored.
func Covers(x, y string) bool {
	if len(y) < len(x) {
		return false
	}
	if !equalFoldASCII(x, y[:len(x)]) {
		return false
	}
	return len(y) == len(x) || y[len(x)] == '-'
}
