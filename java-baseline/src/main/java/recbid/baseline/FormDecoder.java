package recbid.baseline;

/**
 * Strict application/x-www-form-urlencoded decoding, used for bid request
 * bodies and win notice queries. The servlet API's own parameter parsing
 * silently drops malformed pairs; the contract instead rejects the whole text
 * when any '%' is not followed by two hex digits, in any key, including the
 * ignored ones.
 *
 * <p>Pairs are separated by '&amp;', the key from the value by the first '=';
 * '+' is a space and %XX the byte XX. A pair without '=' is a key with an
 * empty value; empty pairs are skipped by the callers (an empty key matches
 * nothing). Decoding happens in place: decoded text is never longer than its
 * encoding.
 */
final class FormDecoder {
    private FormDecoder() {}

    /** The text is not valid url-encoding. */
    static final class MalformedException extends Exception {
        MalformedException() {
            super("not valid url-encoding", null, false, false);
        }
    }

    /** Receives each decoded pair; the value is buf[valueFrom, valueTo), empty when the pair had no '='. */
    @FunctionalInterface
    interface PairHandler {
        void pair(String key, byte[] buf, int valueFrom, int valueTo);
    }

    /** Decodes buf[0, length) in place, calling handler for each pair in order. */
    static void decode(byte[] buf, int length, PairHandler handler) throws MalformedException {
        int r = 0;
        int w = 0;
        while (r < length) {
            int start = w;
            int eq = -1;
            while (r < length) {
                byte c = buf[r];
                if (c == '&') {
                    r++;
                    break;
                }
                if (c == '=' && eq < 0) {
                    eq = w;
                    r++;
                    continue;
                }
                if (c == '+') {
                    c = ' ';
                } else if (c == '%') {
                    if (r + 2 >= length) {
                        throw new MalformedException();
                    }
                    int hi = Character.digit(buf[r + 1], 16);
                    int lo = Character.digit(buf[r + 2], 16);
                    if (hi < 0 || lo < 0) {
                        throw new MalformedException();
                    }
                    c = (byte) (hi << 4 | lo);
                    r += 2;
                }
                buf[w++] = c;
                r++;
            }
            int keyEnd = eq < 0 ? w : eq;
            String key = new String(buf, start, keyEnd - start, java.nio.charset.StandardCharsets.ISO_8859_1);
            handler.pair(key, buf, keyEnd, w);
        }
    }
}
