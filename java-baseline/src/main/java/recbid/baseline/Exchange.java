package recbid.baseline;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * One exchange the server trades with (the Go server's
 * api/exchange/admit.go): its id, who may ask it for bids (allow, token),
 * how its win notices carry the price, and the macro its nurl leaves for
 * the exchange to fill. Immutable.
 */
final class Exchange {
    /** The exchange of the bare paths (/dsp/recbid, /dsp/win), and the implicit one. */
    static final String DEFAULT_ID = "default";
    /** The macro of an exchange that names none. */
    static final String DEFAULT_PRICE_MACRO = "${AUCTION_PRICE}";

    /** Why a bid request is not admitted. */
    enum Refusal { ADMITTED, SOURCE, TOKEN }

    private final String id;
    private final List<Netip.Prefix> allow; // null: any source
    private final byte[] token; // null: no token
    private final Pricing pricing;
    private final String priceMacro;
    private final String winPath; // /dsp/win, or /dsp/win/ID

    Exchange(String id, List<Netip.Prefix> allow, String token, Pricing pricing, String priceMacro) {
        this.id = id;
        this.allow = allow == null ? null : List.copyOf(allow);
        this.token = token == null ? null : token.getBytes(StandardCharsets.ISO_8859_1);
        this.pricing = pricing;
        this.priceMacro = priceMacro;
        this.winPath = DEFAULT_ID.equals(id) ? Api.WIN_PATH : Api.WIN_PATH + "/" + id;
    }

    /** The implicit exchange of a server without an exchanges file: open, clear prices, the default macro. */
    static Exchange implicitDefault() {
        return new Exchange(DEFAULT_ID, null, null, Pricing.clear(), DEFAULT_PRICE_MACRO);
    }

    String id() {
        return id;
    }

    Pricing pricing() {
        return pricing;
    }

    String priceMacro() {
        return priceMacro;
    }

    /** The path of its win notices. */
    String winPath() {
        return winPath;
    }

    /** Whether anyone may ask it for bids. */
    boolean isOpen() {
        return allow == null && token == null;
    }

    /**
     * Checks a bid request: its client address must be in allow (when the
     * exchange has one; a null address is in none), and its Authorization
     * header must be "Bearer TOKEN" (the scheme in any case), the token
     * compared in constant time. The header is a byte string (one char per
     * byte), as Tomcat decodes headers.
     */
    Refusal admit(Netip.Addr client, String authorization) {
        if (allow != null && !Netip.containedIn(allow, client)) {
            return Refusal.SOURCE;
        }
        if (token != null) {
            String h = authorization == null ? "" : authorization;
            int space = h.indexOf(' ');
            String scheme = space < 0 ? h : h.substring(0, space);
            int from = space < 0 ? h.length() : space + 1;
            while (from < h.length() && h.charAt(from) == ' ') {
                from++;
            }
            byte[] given = h.substring(from).getBytes(StandardCharsets.ISO_8859_1);
            // Both tests always run: the comparison's time says nothing about the token.
            boolean bearer = scheme.length() == 6 && Ascii.lower(scheme).equals("bearer");
            boolean same = MessageDigest.isEqual(given, token);
            if (!bearer || !same) {
                return Refusal.TOKEN;
            }
        }
        return Refusal.ADMITTED;
    }

    /** For the start-up line: id, and what guards and prices it. */
    String describe() {
        StringBuilder b = new StringBuilder(id).append(" (");
        if (isOpen()) {
            b.append("open");
        } else {
            b.append(allow == null ? "any source" : allow.size() + " CIDR(s)").append(token == null ? "" : ", token");
        }
        return b.append(", ").append(pricing.describe()).append(')').toString();
    }
}
