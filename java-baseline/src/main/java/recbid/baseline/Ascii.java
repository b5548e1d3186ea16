package recbid.baseline;

import java.nio.charset.StandardCharsets;

/**
 * Byte-level text rules of the contract.
 *
 * <p>Request values are byte strings: the servlets decode the form into
 * ISO-8859-1 strings, one char per byte, so lengths are byte counts and
 * comparisons are byte comparisons, as in the contract. Values from the
 * campaigns file are real Unicode strings; where they are compared with
 * request values (the targeting index) they are first turned into the same
 * one-char-per-byte view of their UTF-8 bytes by {@link #bytesOf(String)}.
 */
final class Ascii {
    private Ascii() {}

    /** Returns s with ASCII letters lowered; other chars are kept. */
    static String lower(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                char[] out = s.toCharArray();
                for (int j = i; j < out.length; j++) {
                    char d = out[j];
                    if (d >= 'A' && d <= 'Z') {
                        out[j] = (char) (d + ('a' - 'A'));
                    }
                }
                return new String(out);
            }
        }
        return s;
    }

    /** The UTF-8 bytes of s as an ISO-8859-1 string (one char per byte). */
    static String bytesOf(String s) {
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** The length of s in UTF-8 bytes. */
    static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** Every char is printable ASCII, 0x21-0x7E. */
    static boolean isPrintable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    static boolean isLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    static boolean isAlnum(char c) {
        return (c >= '0' && c <= '9') || isLetter(c);
    }

    /** Every char is an ASCII letter. */
    static boolean isLetters(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!isLetter(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** An ISO 3166-1 alpha-2 code: two letters, any case. */
    static boolean isCountry(String s) {
        return s.length() == 2 && isLetters(s);
    }

    /** An ISO 3166-2 code: two letters, '-', then 1-3 letters or digits. */
    static boolean isRegion(String s) {
        if (s.length() < 4 || s.length() > 6 || s.charAt(2) != '-' || !isCountry(s.substring(0, 2))) {
            return false;
        }
        for (int i = 3; i < s.length(); i++) {
            if (!isAlnum(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Letters, digits, '.', '_' and '-' (operating systems, host names); empty is not a token. */
    static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!isAlnum(c) && c != '.' && c != '_' && c != '-') {
                return false;
            }
        }
        return true;
    }

    /** HTML-escapes &amp;, &lt;, &gt;, &quot; and &#39; as the contract's adm demands. */
    static String htmlEscape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** A double-quoted rendering of s for problem messages, close to Go's strconv.Quote. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format("\\x%02x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
