package bidder

// Value formats shared by the campaigns file and the transports, for strings
// and for the byte slices a parser holds. Each accepts the empty value;
// callers that require one check it first.

// IsPrintableASCII reports whether every byte is 0x21–0x7E.
func IsPrintableASCII[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// IsLetters reports whether every byte is an ASCII letter.
func IsLetters[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// IsCountryCode accepts an ISO 3166-1 alpha-2 code: two letters, any case.
func IsCountryCode[S ~string | ~[]byte](s S) bool { return len(s) == 2 && IsLetters(s) }

// IsRegionCode accepts an ISO 3166-2 code: a country code, '-', and 1–3
// letters or digits ("CN-31", "US-CA", "GB-ENG").
func IsRegionCode[S ~string | ~[]byte](s S) bool {
	if len(s) < 4 || len(s) > 6 || s[2] != '-' || !IsCountryCode(s[:2]) {
		return false
	}
	for i := 3; i < len(s); i++ {
		if !IsAlnum(s[i]) {
			return false
		}
	}
	return true
}

// IsToken accepts letters, digits, '.', '_' and '-': operating systems and
// domain names.
func IsToken[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !IsAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// IsAlnum reports whether c is an ASCII letter or digit.
func IsAlnum(c byte) bool {
	return (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
