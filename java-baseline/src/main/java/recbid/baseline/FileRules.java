package recbid.baseline;

import java.time.LocalDate;

/**
 * The two value rules of the campaigns file that no JDK class reads the way
 * the Go server does: absolute URLs and RFC 3339 times. java.net.URI and
 * java.time.format reject or accept different strings than Go's net/url and
 * time packages, and the contract wants both servers to accept the same
 * file, so both rules are written out here after the Go readings.
 */
final class FileRules {
    private FileRules() {}

    // ---- URLs ----------------------------------------------------------

    /**
     * Returns the lowercased scheme of s when s parses as a URL with a
     * non-empty host, reading it as Go's net/url.Parse does; null otherwise.
     */
    static String urlSchemeWithHost(String s) {
        int hash = s.indexOf('#');
        String u = hash >= 0 ? s.substring(0, hash) : s;
        if (hash >= 0 && !validEscapes(s.substring(hash + 1))) {
            return null;
        }
        for (int i = 0; i < u.length(); i++) {
            char c = u.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return null; // a control character
            }
        }
        // The scheme: a letter, then letters, digits, '+', '-' or '.', then ':'.
        int colon = -1;
        for (int i = 0; i < u.length(); i++) {
            char c = u.charAt(i);
            if (Ascii.isLetter(c)) {
                continue;
            }
            if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
                if (i == 0) {
                    return null;
                }
                continue;
            }
            if (c == ':' && i > 0) {
                colon = i;
            }
            break;
        }
        if (colon < 0) {
            return null; // no scheme: not absolute
        }
        String scheme = Ascii.lower(u.substring(0, colon));
        String rest = u.substring(colon + 1);
        if (rest.endsWith("?") && rest.indexOf('?') == rest.length() - 1) {
            rest = rest.substring(0, rest.length() - 1);
        } else if (rest.indexOf('?') >= 0) {
            rest = rest.substring(0, rest.indexOf('?')); // the query is kept raw, unchecked
        }
        if (!rest.startsWith("//")) {
            return null; // opaque or without authority: no host
        }
        String authority = rest.substring(2);
        String path = "";
        int slash = authority.indexOf('/');
        if (slash >= 0) {
            path = authority.substring(slash);
            authority = authority.substring(0, slash);
        }
        int at = authority.lastIndexOf('@');
        String host = at >= 0 ? authority.substring(at + 1) : authority;
        if (!validHost(host, scheme)) {
            return null;
        }
        if (at >= 0 && !validUserinfo(authority.substring(0, at))) {
            return null;
        }
        if (!validEscapes(path)) {
            return null;
        }
        return host.isEmpty() ? null : scheme;
    }

    private static boolean validHost(String host, String scheme) {
        int open = host.lastIndexOf('[');
        if (open > 0) {
            return false;
        }
        if (open == 0) {
            int close = host.lastIndexOf(']');
            if (close < 0 || !validOptionalPort(host.substring(close + 1))) {
                return false;
            }
            return validIPv6Literal(host.substring(1, close));
        }
        int colon = host.indexOf(':');
        if (colon >= 0) {
            // Go takes the port from the first colon for http(s) URLs.
            int from = ("http".equals(scheme) || "https".equals(scheme)) ? colon : host.lastIndexOf(':');
            if (!validOptionalPort(host.substring(from))) {
                return false;
            }
        }
        return validHostChars(host);
    }

    /** The characters Go allows in a host name; %XX only for bytes 0x80 and above, or %25. */
    private static boolean validHostChars(String host) {
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c == '%') {
                if (i + 2 >= host.length() || !isHex(host.charAt(i + 1)) || !isHex(host.charAt(i + 2))) {
                    return false;
                }
                if (Character.digit(host.charAt(i + 1), 16) < 8 && !host.startsWith("%25", i)) {
                    return false;
                }
                i += 2;
            } else if (c < 0x80 && !Ascii.isAlnum(c) && "!\"$&'()*+,-.:;<=>[]_~".indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    /** An IPv6 address, possibly with a %25-escaped zone: hex digits, ':' and '.' (for an embedded IPv4 tail). */
    private static boolean validIPv6Literal(String s) {
        int zone = s.indexOf("%25");
        String addr = zone >= 0 ? s.substring(0, zone) : s;
        if (addr.indexOf(':') < 0) {
            return false;
        }
        for (int i = 0; i < addr.length(); i++) {
            char c = addr.charAt(i);
            if (!isHex(c) && c != ':' && c != '.') {
                return false;
            }
        }
        return zone < 0 || validEscapes(s.substring(zone));
    }

    private static boolean validOptionalPort(String port) {
        if (port.isEmpty()) {
            return true;
        }
        if (port.charAt(0) != ':') {
            return false;
        }
        for (int i = 1; i < port.length(); i++) {
            char c = port.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean validUserinfo(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Ascii.isAlnum(c) && "-._:~!$&'()*+,;=%@".indexOf(c) < 0) {
                return false;
            }
        }
        return validEscapes(s);
    }

    /** Every '%' is followed by two hex digits. */
    private static boolean validEscapes(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '%') {
                if (i + 2 >= s.length() || !isHex(s.charAt(i + 1)) || !isHex(s.charAt(i + 2))) {
                    return false;
                }
                i += 2;
            }
        }
        return true;
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    // ---- times ---------------------------------------------------------

    /** An instant as Unix seconds plus nanoseconds (0-999,999,999). */
    record Instant(long seconds, int nanos) {
        boolean isAfter(Instant o) {
            return seconds > o.seconds || (seconds == o.seconds && nanos > o.nanos);
        }

        /** Unix milliseconds rounded up: a request at millisecond m is at or after this instant exactly when m >= ceilMillis(). */
        long ceilMillis() {
            long ms = seconds * 1000 + nanos / 1_000_000;
            return nanos % 1_000_000 != 0 ? ms + 1 : ms;
        }
    }

    /**
     * Parses an RFC 3339 time ("2026-01-01T00:00:00Z", "2026-01-01T08:00:00.5+08:00")
     * as Go's time.Parse(time.RFC3339Nano, s) does; null when it is not one.
     */
    static Instant parseRfc3339(String s) {
        if (s.length() < 19) {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, 19);
        if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 59 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T'
                || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return null;
        }
        LocalDate date = LocalDate.of(year, month, 1);
        if (day > date.lengthOfMonth()) {
            return null;
        }
        int i = 19;
        int nanos = 0;
        if (i + 1 < s.length() && (s.charAt(i) == '.' || s.charAt(i) == ',') && isDigit(s.charAt(i + 1))) {
            int j = i + 1;
            int scale = 100_000_000;
            for (; j < s.length() && isDigit(s.charAt(j)); j++) {
                nanos += (s.charAt(j) - '0') * scale;
                scale /= 10; // digits past the ninth are dropped, as Go does
            }
            i = j;
        }
        String zone = s.substring(i);
        int offset;
        if (zone.equals("Z")) {
            offset = 0;
        } else if (zone.length() == 6 && (zone.charAt(0) == '+' || zone.charAt(0) == '-') && zone.charAt(3) == ':') {
            int zh = digits(zone, 1, 3);
            int zm = digits(zone, 4, 6);
            if (zh < 0 || zm < 0 || zh > 24 || zm > 60) { // Go allows offsets of 24 hours or 60 minutes
                return null;
            }
            offset = (zh * 60 + zm) * 60 * (zone.charAt(0) == '-' ? -1 : 1);
        } else {
            return null;
        }
        long seconds = date.withDayOfMonth(day).toEpochDay() * 86_400L + hour * 3600L + minute * 60L + second - offset;
        return new Instant(seconds, nanos);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The decimal value of s[from, to), or -1 when a char is not a digit. */
    private static int digits(String s, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!isDigit(c)) {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
