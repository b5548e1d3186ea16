package recbid.baseline;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The proxies trusted to say who their client is (-trusted-proxies, the Go
 * server's exchange.Proxies): only a request that reaches the server
 * through one of them is taken to come from the address its
 * X-Forwarded-For names. Immutable.
 */
final class Proxies {
    private static final Proxies NONE = new Proxies(List.of());

    private final List<Netip.Prefix> prefixes;

    private Proxies(List<Netip.Prefix> prefixes) {
        this.prefixes = List.copyOf(prefixes);
    }

    static Proxies none() {
        return NONE;
    }

    /** A comma-separated list of CIDRs ("" is none); the exception's message is the Go server's. */
    static Proxies parse(String s) {
        List<Netip.Prefix> out = new ArrayList<>();
        for (String f : s.split(",", -1)) {
            f = trimSpace(f);
            if (f.isEmpty()) {
                continue;
            }
            try {
                out.add(Netip.cidr(f));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("trusted proxies: " + e.getMessage());
            }
        }
        return new Proxies(out);
    }

    boolean isEmpty() {
        return prefixes.isEmpty();
    }

    @Override
    public String toString() {
        List<String> s = new ArrayList<>();
        for (Netip.Prefix p : prefixes) {
            s.add(p.toString());
        }
        return String.join(",", s);
    }

    /**
     * The address a bid request comes from: the connection's peer (unmapped),
     * unless the peer is a trusted proxy, in which case the X-Forwarded-For
     * lines (all of them, in order, each a comma list) are read from the
     * right, past the trusted proxies, and the first other entry is the
     * client (entries further left were written by the client itself and
     * prove nothing). An entry that is not an IP address gives null, which
     * no allow list holds. Header values are byte strings (one char per
     * byte), as Tomcat and Netty decode them; forwardedFor is only iterated
     * when the peer is trusted.
     */
    Netip.Addr client(Netip.Addr peer, Iterable<String> forwardedFor) {
        peer = peer == null ? null : peer.unmap();
        if (prefixes.isEmpty() || !Netip.containedIn(prefixes, peer)) {
            return peer;
        }
        List<String> lines = new ArrayList<>();
        if (forwardedFor != null) {
            for (String line : forwardedFor) {
                lines.add(line);
            }
        }
        for (int i = lines.size() - 1; i >= 0; i--) {
            String[] hops = lines.get(i).split(",", -1);
            for (int j = hops.length - 1; j >= 0; j--) {
                String hop = trimSpace(utf8(hops[j]));
                if (hop.isEmpty()) {
                    continue;
                }
                Netip.Addr a = Netip.parseAddr(hop);
                if (a == null) {
                    return null;
                }
                a = a.unmap();
                if (!Netip.containedIn(prefixes, a)) {
                    return a;
                }
                peer = a; // a trusted proxy: look further left
            }
        }
        return peer; // every hop a trusted proxy
    }

    /** The UTF-8 text of a byte string (one char per byte). */
    private static String utf8(String bytes) {
        return new String(bytes.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    /** Go's strings.TrimSpace: Unicode white space trimmed at both ends. */
    private static String trimSpace(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && isGoSpace(s.charAt(a))) {
            a++;
        }
        while (b > a && isGoSpace(s.charAt(b - 1))) {
            b--;
        }
        return s.substring(a, b);
    }

    /** Go's unicode.IsSpace. */
    private static boolean isGoSpace(char c) {
        return c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r' || c == 0x85 || Character.isSpaceChar(c);
    }
}
