package recbid.baseline;

import java.util.Arrays;

/**
 * IP addresses and CIDR prefixes read and written the way Go's net/netip
 * reads and writes them, so that an exchanges file, -trusted-proxies and
 * X-Forwarded-For entries are accepted, refused and named alike by both
 * servers. java.net.InetAddress is no substitute: it resolves names it does
 * not recognize as literals, reads "127.1" as an address, and turns
 * IPv4-mapped IPv6 addresses into IPv4 ones on its own.
 */
final class Netip {
    private Netip() {}

    /** An IPv4 (4 bytes) or IPv6 (16 bytes) address, with an IPv6 zone or none. */
    static final class Addr {
        private final byte[] b;
        private final String zone; // IPv6 only; null: none

        private Addr(byte[] b, String zone) {
            this.b = b;
            this.zone = zone;
        }

        boolean is4() {
            return b.length == 4;
        }

        /** An IPv6 address of the form ::ffff:a.b.c.d. */
        boolean is4In6() {
            if (b.length != 16) {
                return false;
            }
            for (int i = 0; i < 10; i++) {
                if (b[i] != 0) {
                    return false;
                }
            }
            return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        }

        /** An IPv4-mapped IPv6 address as the IPv4 address it maps (its zone dropped); others as they are. */
        Addr unmap() {
            return is4In6() ? new Addr(Arrays.copyOfRange(b, 12, 16), null) : this;
        }

        int bitLen() {
            return b.length * 8;
        }

        private int bit(int i) {
            return (b[i >> 3] >> (7 - (i & 7))) & 1;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Addr a && Arrays.equals(b, a.b) && java.util.Objects.equals(zone, a.zone);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(b);
        }

        /** Go's Addr.String: dotted IPv4, ::ffff:a.b.c.d, or RFC 5952 IPv6 (the first longest run of zeros as ::). */
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(40);
            if (is4()) {
                appendV4(s, 0);
                return s.toString();
            }
            if (is4In6()) {
                s.append("::ffff:");
                appendV4(s, 12);
            } else {
                int zeroStart = -1;
                int zeroEnd = -1;
                for (int i = 0; i < 8; i++) {
                    int j = i;
                    while (j < 8 && group(j) == 0) {
                        j++;
                    }
                    if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
                        zeroStart = i;
                        zeroEnd = j;
                    }
                }
                for (int i = 0; i < 8; i++) {
                    if (i == zeroStart) {
                        s.append("::");
                        i = zeroEnd;
                        if (i >= 8) {
                            break;
                        }
                    } else if (i > 0) {
                        s.append(':');
                    }
                    s.append(Integer.toHexString(group(i)));
                }
            }
            if (zone != null) {
                s.append('%').append(zone);
            }
            return s.toString();
        }

        private int group(int i) {
            return ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }

        private void appendV4(StringBuilder s, int off) {
            for (int i = off; i < off + 4; i++) {
                if (i > off) {
                    s.append('.');
                }
                s.append(b[i] & 0xff);
            }
        }
    }

    /** An address and a prefix length; bits -1 is an invalid prefix that contains nothing. */
    record Prefix(Addr addr, int bits) {
        /**
         * Whether a is in the prefix. As in Go, an IPv4 address is never in
         * an IPv6 prefix nor the reverse (unmap first), and an address with a
         * zone is in none.
         */
        boolean contains(Addr a) {
            if (a == null || a.zone != null || bits < 0 || a.is4() != addr.is4()) {
                return false;
            }
            for (int i = 0; i < bits; i++) {
                if (a.bit(i) != addr.bit(i)) {
                    return false;
                }
            }
            return true;
        }

        /** The prefix with its host bits cleared. */
        Prefix masked() {
            byte[] m = addr.b.clone();
            for (int i = bits; i < m.length * 8; i++) {
                m[i >> 3] &= (byte) ~(1 << (7 - (i & 7)));
            }
            return new Prefix(new Addr(m, addr.zone), bits);
        }

        @Override
        public String toString() {
            return addr + "/" + bits;
        }
    }

    /** Whether a (unmapped) is in one of the prefixes. */
    static boolean containedIn(java.util.List<Prefix> prefixes, Addr a) {
        if (a == null) {
            return false;
        }
        a = a.unmap();
        for (Prefix p : prefixes) {
            if (p.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A CIDR of an exchanges file or -trusted-proxies ("203.0.113.0/24",
     * "2001:db8::/32"): its address must be the network's first; an
     * IPv4-mapped prefix is read as the IPv4 prefix it maps. The exception's
     * message is the Go server's.
     */
    static Prefix cidr(String s) {
        Prefix p = parsePrefix(s);
        if (p == null) {
            throw new IllegalArgumentException(Ascii.quote(s) + " is not a CIDR such as 203.0.113.0/24");
        }
        Prefix m = p.masked();
        if (!m.equals(p)) {
            throw new IllegalArgumentException(Ascii.quote(s) + " has host bits set (did you mean " + m + "?)");
        }
        if (p.addr().is4In6()) {
            int bits = p.bits() - 96;
            return new Prefix(p.addr().unmap(), bits < 0 ? -1 : bits);
        }
        return p;
    }

    /** Go's netip.ParsePrefix: ADDR/BITS, no zone, BITS decimal without sign or leading zero; null when malformed. */
    static Prefix parsePrefix(String s) {
        int slash = s.lastIndexOf('/');
        if (slash < 0) {
            return null;
        }
        Addr a = parseAddr(s.substring(0, slash));
        if (a == null || a.zone != null) {
            return null;
        }
        String bits = s.substring(slash + 1);
        if (bits.isEmpty() || bits.length() > 3 || (bits.length() > 1 && bits.charAt(0) == '0')) {
            return null;
        }
        int n = 0;
        for (int i = 0; i < bits.length(); i++) {
            char c = bits.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            n = n * 10 + (c - '0');
        }
        return n > a.bitLen() ? null : new Prefix(a, n);
    }

    /** Go's netip.ParseAddr: dotted-decimal IPv4 without leading zeros, or IPv6 (with a zone); null when malformed. */
    static Addr parseAddr(String s) {
        for (int i = 0; i < s.length(); i++) {
            switch (s.charAt(i)) {
                case '.':
                    byte[] v4 = new byte[4];
                    return parseV4(s, 0, s.length(), v4, 0) ? new Addr(v4, null) : null;
                case ':':
                    return parseV6(s);
                case '%':
                    return null;
                default:
                    break;
            }
        }
        return null;
    }

    /** Reads four decimal fields 0-255, no leading zeros, from s[from, to) into out[off..off+4). */
    private static boolean parseV4(String s, int from, int to, byte[] out, int off) {
        int val = 0;
        int digits = 0;
        int field = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') {
                if (digits == 1 && val == 0) {
                    return false; // a leading zero
                }
                val = val * 10 + (c - '0');
                digits++;
                if (val > 255) {
                    return false;
                }
            } else if (c == '.') {
                if (i == from || i == to - 1 || s.charAt(i - 1) == '.' || field == 3) {
                    return false;
                }
                out[off + field++] = (byte) val;
                val = 0;
                digits = 0;
            } else {
                return false;
            }
        }
        if (field < 3) {
            return false;
        }
        out[off + 3] = (byte) val;
        return true;
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /** Go's parseIPv6, step for step. */
    private static Addr parseV6(String in) {
        String s = in;
        String zone = null;
        int pct = s.indexOf('%');
        if (pct >= 0) {
            zone = s.substring(pct + 1);
            s = s.substring(0, pct);
            if (zone.isEmpty()) {
                return null;
            }
        }
        int end = s.length();
        byte[] ip = new byte[16];
        int ellipsis = -1; // position of the :: in ip
        int pos = 0; // position in s
        if (end >= 2 && s.charAt(0) == ':' && s.charAt(1) == ':') {
            ellipsis = 0;
            pos = 2;
            if (pos == end) {
                return new Addr(ip, zone);
            }
        }
        int i = 0;
        while (i < 16) {
            int off = 0;
            int acc = 0;
            for (; pos + off < end; off++) {
                int h = hex(s.charAt(pos + off));
                if (h < 0) {
                    break;
                }
                acc = (acc << 4) + h;
                if (off > 3) {
                    return null; // more than 4 digits in a group
                }
            }
            if (off == 0) {
                return null; // no digits
            }
            if (pos + off < end && s.charAt(pos + off) == '.') { // a trailing IPv4 address
                if ((ellipsis < 0 && i != 12) || i + 4 > 16) {
                    return null;
                }
                if (!parseV4(s, pos, end, ip, i)) {
                    return null;
                }
                pos = end;
                i += 4;
                break;
            }
            ip[i] = (byte) (acc >> 8);
            ip[i + 1] = (byte) acc;
            i += 2;
            pos += off;
            if (pos == end) {
                break;
            }
            if (s.charAt(pos) != ':' || pos + 1 == end) {
                return null; // want a colon followed by more
            }
            pos++;
            if (s.charAt(pos) == ':') {
                if (ellipsis >= 0) {
                    return null; // a second ::
                }
                ellipsis = i;
                pos++;
                if (pos == end) {
                    break;
                }
            }
        }
        if (pos != end) {
            return null; // trailing garbage
        }
        if (i < 16) {
            if (ellipsis < 0) {
                return null; // too short
            }
            int n = 16 - i;
            for (int j = i - 1; j >= ellipsis; j--) {
                ip[j + n] = ip[j];
            }
            Arrays.fill(ip, ellipsis, ellipsis + n, (byte) 0);
        } else if (ellipsis >= 0) {
            return null; // :: must stand for at least one group
        }
        return new Addr(ip, zone);
    }
}
