package nativead

import "unicode/utf8"

// The answer's native document is the inside of a JSON string (the bid's
// adm), so each of the creative's texts is escaped twice: once as a JSON
// string in the native document, with jsoncodec.AppendString's minimal
// escaping ('"' and '\' escaped, control characters as \b \f \n \r \t or
// \u00xx, every other byte as it is), then that text once more as part of
// the adm string, which doubles each '\' and escapes each '"'.

const hexDigits = "0123456789abcdef"

// safe marks the bytes written as they are by both escapings: printable
// ASCII but '"' and '\'. Bytes from 0x80 are checked as UTF-8.
var safe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// appendEscaped2 appends s escaped twice, without the quotes: the text
// jsoncodec.AppendString would write between the quotes of the JSON
// string of the text jsoncodec.AppendString writes for s. A byte that is
// not part of valid UTF-8 becomes U+FFFD, one for each such byte, so that
// the answer is valid UTF-8 and holds as many characters as
// utf8.RuneCountInString counts in s.
func appendEscaped2(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if safe[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if _, size := utf8.DecodeRuneInString(s[i:]); size > 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, replacement...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"': // \" in the document, \\\" in the adm
			dst = append(dst, `\\\"`...)
		case '\\': // \\, then \\\\
			dst = append(dst, `\\\\`...)
		case '\b':
			dst = append(dst, `\\b`...)
		case '\f':
			dst = append(dst, `\\f`...)
		case '\n':
			dst = append(dst, `\\n`...)
		case '\r':
			dst = append(dst, `\\r`...)
		case '\t':
			dst = append(dst, `\\t`...)
		default: // \u00xx, then \\u00xx
			dst = append(dst, '\\', '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(dst, s[start:]...)
}

// AppendEscaped appends s as the answer holds a text: escaped as a JSON
// string's content inside the native document, then that text escaped
// once more as part of the adm string (no quotes around it). It is how a
// caller makes the clickURL and impURL of AppendResponse, or their parts
// that are not plain ASCII letters, digits and URL punctuation: text
// without '"', '\' and control characters stays as it is. Bytes that are
// not valid UTF-8 become U+FFFD.
func AppendEscaped(dst []byte, s string) []byte { return appendEscaped2(dst, s) }
