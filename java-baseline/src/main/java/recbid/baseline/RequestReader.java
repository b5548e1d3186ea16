package recbid.baseline;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Turns a bid request body into a {@link BidRequest}: strict decoding, then
 * the value rules of docs/protocol.md section 1, checked in the order of the
 * contract's table so that the first key at fault is the one answered.
 */
final class RequestReader {
    private RequestReader() {}

    /** The keys the bidder reads, in the order of the contract's table. */
    enum Key {
        ID("id"), IMP_ID("imp_id"), W("w"), H("h"), FLOOR("floor"), CUR("cur"), SITE("site"), BUNDLE("bundle"),
        CAT("cat"), BCAT("bcat"), BADV("badv"), OS("os"), DEVTYPE("devtype"), COUNTRY("country"),
        REGION("region"), CITY("city"), UID("uid"), TS("ts"), TMAX("tmax"), TEST("test"), SECURE("secure");

        final String wireName;

        Key(String wireName) {
            this.wireName = wireName;
        }

        private static final Map<String, Key> BY_NAME = new HashMap<>();
        private static final Key[] ALL = values();

        static {
            for (Key k : ALL) {
                BY_NAME.put(k.wireName, k);
            }
        }
    }

    /** A 400 answer: missing_field or invalid_field, naming the key at fault. */
    static final class FieldException extends Exception {
        final String code;
        final String field;

        FieldException(String code, String field, String message) {
            super(message, null, false, false);
            this.code = code;
            this.field = field;
        }
    }

    private static final int MAX_ID_LEN = 64;
    private static final int MAX_UID_LEN = 128;
    private static final int MAX_STRING_LEN = 256;
    private static final long MAX_TS_MILLIS = 253_402_300_799_999L; // 9999-12-31T23:59:59.999Z

    /**
     * Decodes body[0, length) and validates it. The request time is
     * nowMillis, the server clock at arrival; ts is validated and otherwise
     * ignored, unless trustTs (flag -trust-request-ts), when ts, if given,
     * is the request time.
     */
    static BidRequest read(byte[] body, int length, long nowMillis, boolean trustTs)
            throws FormDecoder.MalformedException, FieldException {
        String[] values = new String[Key.ALL.length];
        FormDecoder.decode(body, length, (key, buf, from, to) -> {
            Key k = Key.BY_NAME.get(key);
            // An empty value counts as absent; the first non-empty value counts.
            if (k != null && to > from && values[k.ordinal()] == null) {
                values[k.ordinal()] = new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
            }
        });
        return validate(values, nowMillis, trustTs);
    }

    private static BidRequest validate(String[] values, long nowMillis, boolean trustTs) throws FieldException {
        BidRequest req = new BidRequest();
        for (Key k : Key.ALL) {
            String v = values[k.ordinal()];
            if (v == null) {
                if (k == Key.ID || k == Key.IMP_ID || k == Key.W || k == Key.H) {
                    throw new FieldException("missing_field", k.wireName, k.wireName + " is required");
                }
                continue;
            }
            if (k != Key.UID && k != Key.ID && k != Key.IMP_ID && v.length() > MAX_STRING_LEN) {
                throw invalid(k, "must be at most 256 bytes");
            }
            switch (k) {
                case ID, IMP_ID -> {
                    if (v.length() > MAX_ID_LEN || !Ascii.isPrintable(v)) {
                        throw invalid(k, "must be 1-64 printable ASCII characters");
                    }
                    if (k == Key.ID) {
                        req.id = v;
                    } else {
                        req.impId = v;
                    }
                }
                case W, H -> {
                    long n = parseInt(v, 1, 10000);
                    if (n < 0) {
                        throw invalid(k, "must be an integer 1-10000");
                    }
                    if (k == Key.W) {
                        req.w = (int) n;
                    } else {
                        req.h = (int) n;
                    }
                }
                case FLOOR -> {
                    long m = Micros.parse(v);
                    if (m == Micros.INVALID) {
                        throw invalid(k, "must be a decimal >= 0 with at most 6 fractional digits");
                    }
                    req.floor = m;
                }
                case CUR -> {
                    if (v.length() != 3 || !Ascii.isLetters(v)) {
                        throw invalid(k, "must be a 3-letter currency code");
                    }
                    req.cur = v;
                }
                case SITE -> {
                    if (!Ascii.isToken(v)) {
                        throw invalid(k, "must be a domain name");
                    }
                    req.site = v;
                }
                case BUNDLE -> req.bundle = v;
                case CAT -> req.cat = v;
                case BCAT -> req.bcat = v;
                case BADV -> req.badv = v;
                case OS -> {
                    if (!Ascii.isToken(v)) {
                        throw invalid(k, "must be a token of letters, digits, '.', '_' or '-'");
                    }
                    req.os = v;
                }
                case DEVTYPE -> {
                    long n = parseInt(v, 1, 7);
                    if (n < 0) {
                        throw invalid(k, "must be an OpenRTB device type 1-7");
                    }
                    req.devType = (int) n;
                }
                case COUNTRY -> {
                    if (!Ascii.isCountry(v)) {
                        throw invalid(k, "must be an ISO 3166-1 alpha-2 code");
                    }
                    req.country = v;
                }
                case REGION -> {
                    if (!Ascii.isRegion(v)) {
                        throw invalid(k, "must be an ISO 3166-2 code such as CN-31");
                    }
                    req.region = v;
                }
                case CITY -> req.city = v;
                case UID -> {
                    if (v.length() > MAX_UID_LEN) {
                        throw invalid(k, "must be at most 128 bytes");
                    }
                    req.uid = v;
                }
                case TS -> {
                    long n = parseInt(v, 0, MAX_TS_MILLIS);
                    if (n < 0) {
                        throw invalid(k, "must be Unix milliseconds");
                    }
                    if (trustTs) {
                        req.timeMs = n;
                    }
                }
                case TMAX -> {
                    long n = parseInt(v, 1, 10000);
                    if (n < 0) {
                        throw invalid(k, "must be an integer 1-10000 (milliseconds)");
                    }
                    req.tmaxMs = (int) n;
                }
                case TEST, SECURE -> {
                    if (!v.equals("0") && !v.equals("1")) {
                        throw invalid(k, "must be 0 or 1");
                    }
                    if (k == Key.TEST) {
                        req.test = v.equals("1");
                    } else {
                        req.secure = v.equals("1");
                    }
                }
            }
        }
        if (!trustTs || values[Key.TS.ordinal()] == null) {
            req.timeMs = nowMillis;
        }
        return req;
    }

    private static FieldException invalid(Key k, String msg) {
        return new FieldException("invalid_field", k.wireName, k.wireName + " " + msg);
    }

    /** ASCII digits only (no sign, no spaces; leading zeros allowed) within [lo, hi]; -1 otherwise. */
    static long parseInt(String s, long lo, long hi) {
        if (s.isEmpty()) {
            return -1;
        }
        int first = 0;
        while (first < s.length() - 1 && s.charAt(first) == '0') {
            first++;
        }
        s = s.substring(first);
        if (s.length() > 19) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
            if (n > hi) {
                return -1;
            }
        }
        return n >= lo ? n : -1;
    }
}
