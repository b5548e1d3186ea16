package jsoncodec

// The contract's escaping rules, which no JSON library offers exactly:
// json-iterator and encoding/json write \b and \f as \u0008 and \u000c, and
// encoding/json also escapes <, >, &, U+2028 and U+2029.

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string with minimal escaping: '"' and
// '\' are escaped, U+0000–U+001F become \b \f \n \r \t or \u00xx (lowercase
// hex), and every other byte is written as it is.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// String appends any UTF-8 string as a JSON string with AppendString's
// minimal escaping.
func (w Writer) String(s string) { w.SetBytes(AppendString(w.Bytes(), s)) }
