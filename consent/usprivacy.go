package consent

// uspOptOut reports whether a us_privacy string refuses user-level
// processing: it opts out of sale ("1?Y?"), or it is malformed (not four
// characters, version not 1, a character other than Y, N or -). The empty
// string is no signal. "1---" (the law does not apply) is no opt-out.
func uspOptOut(s string) bool {
	if s == "" {
		return false
	}
	if len(s) != 4 || s[0] != '1' {
		return true
	}
	for i := 1; i < 4; i++ {
		if c := s[i]; c != 'Y' && c != 'N' && c != '-' {
			return true
		}
	}
	return s[2] == 'Y'
}
