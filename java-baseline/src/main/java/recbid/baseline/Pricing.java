package recbid.baseline;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.OptionalLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How one exchange's win notices carry the clearing price (the Go server's
 * api/exchange/price.go): a decimal CPM ("clear"), or a price encrypted and
 * signed with HMAC-SHA1 under the exchange's two keys ("hmac-sha1").
 *
 * <p>An encrypted price is web-safe base64, with its "=" padding or without,
 * of 28 bytes: iv (16) ‖ p (8) ‖ sig (4). The price is p XOR
 * HMAC-SHA1(e_key, iv)[:8], a big-endian unsigned integer, valid only if
 * HMAC-SHA1(i_key, price ‖ iv)[:4] is sig (compared in constant time). Its
 * unit is micros of CPM, or micros per impression (cpi: × 1000 is CPM
 * micros).
 *
 * <p>Immutable and shared by the request threads; each thread keeps its own
 * pair of keyed {@link Mac}s (a Mac is not thread-safe, and keying one per
 * notice would cost more than the HMACs).
 */
final class Pricing {
    /** The length of e_key and i_key. */
    static final int KEY_BYTES = 32;

    private static final int IV_BYTES = 16;
    private static final int PRICE_BYTES = 8;
    private static final int SIG_BYTES = 4;
    private static final int ENCRYPTED_BYTES = IV_BYTES + PRICE_BYTES + SIG_BYTES; // 28
    private static final String HMAC = "HmacSHA1";

    private static final Pricing CLEAR = new Pricing(null, null, false);

    private final SecretKeySpec eKey; // null: clear
    private final SecretKeySpec iKey;
    private final boolean cpi;
    private final ThreadLocal<Mac[]> macs;

    private Pricing(byte[] eKey, byte[] iKey, boolean cpi) {
        this.eKey = eKey == null ? null : new SecretKeySpec(eKey, HMAC);
        this.iKey = iKey == null ? null : new SecretKeySpec(iKey, HMAC);
        this.cpi = cpi;
        this.macs = eKey == null ? null : ThreadLocal.withInitial(() -> new Mac[] {mac(this.eKey), mac(this.iKey)});
    }

    /** The pricing of an exchange that sends a decimal CPM. */
    static Pricing clear() {
        return CLEAR;
    }

    /** The pricing of an exchange that encrypts its prices with these keys (KEY_BYTES each); cpi: per impression. */
    static Pricing encrypted(byte[] eKey, byte[] iKey, boolean cpi) {
        if (eKey.length != KEY_BYTES || iKey.length != KEY_BYTES) {
            throw new IllegalArgumentException("keys must be " + KEY_BYTES + " bytes");
        }
        return new Pricing(eKey.clone(), iKey.clone(), cpi);
    }

    boolean isClear() {
        return eKey == null;
    }

    /** "clear", or "hmac-sha1" and the unit, for the start-up line (never the keys). */
    String describe() {
        return isClear() ? "clear" : "hmac-sha1 " + (cpi ? "cpi_micros" : "cpm_micros");
    }

    /** What a win notice's price must be, the message of its 400 invalid_field (the Go server's). */
    String priceMessage() {
        return isClear() ? "price must be a decimal > 0 with at most 6 fractional digits"
                : "price must be the exchange's encrypted price, signed with its keys, above 0";
    }

    /**
     * Reads a win notice's price into CPM micros: a decimal for a clear
     * exchange, an encrypted price for the others. Returns
     * {@link Micros#INVALID} for what is malformed, fails the integrity
     * check, is zero, or is above {@link Micros#MAX}; whether it is above
     * the bid is the bid store's to say.
     */
    long decode(String s) {
        if (isClear()) {
            long m = Micros.parse(s);
            return m == 0 ? Micros.INVALID : m; // a leaked nurl fired at 0 must not claim the win first
        }
        OptionalLong v = decrypt(s);
        if (v.isEmpty()) {
            return Micros.INVALID;
        }
        long price = v.getAsLong(); // unsigned
        long limit = cpi ? Micros.MAX / 1000 : Micros.MAX;
        if (price == 0 || Long.compareUnsigned(price, limit) > 0) {
            return Micros.INVALID;
        }
        return cpi ? price * 1000 : price;
    }

    /**
     * The unsigned integer an encrypted price carries, or empty when it is
     * not 28 bytes of web-safe base64 or fails the integrity check.
     */
    OptionalLong decrypt(String s) {
        byte[] raw = isClear() ? null : decodeBase64(s, ENCRYPTED_BYTES);
        if (raw == null) {
            return OptionalLong.empty();
        }
        Mac[] m = macs.get();
        m[0].update(raw, 0, IV_BYTES);
        byte[] pad = m[0].doFinal();
        byte[] price = new byte[PRICE_BYTES];
        for (int i = 0; i < PRICE_BYTES; i++) {
            price[i] = (byte) (raw[IV_BYTES + i] ^ pad[i]);
        }
        m[1].update(price);
        m[1].update(raw, 0, IV_BYTES);
        byte[] want = Arrays.copyOf(m[1].doFinal(), SIG_BYTES);
        byte[] sig = Arrays.copyOfRange(raw, IV_BYTES + PRICE_BYTES, ENCRYPTED_BYTES);
        if (!MessageDigest.isEqual(want, sig)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(ByteBuffer.wrap(price).getLong());
    }

    /**
     * The exchange's side of {@link #decrypt}: price, encrypted and signed
     * with this iv (16 bytes), in unpadded web-safe base64. The server never
     * encrypts; tests mint win notices with it.
     */
    String encrypt(long price, byte[] iv) {
        if (isClear() || iv.length != IV_BYTES) {
            throw new IllegalArgumentException("an encrypting exchange and a 16-byte iv are needed");
        }
        Mac[] m = macs.get();
        byte[] plain = ByteBuffer.allocate(PRICE_BYTES).putLong(price).array();
        byte[] pad = m[0].doFinal(iv);
        byte[] raw = Arrays.copyOf(iv, ENCRYPTED_BYTES);
        for (int i = 0; i < PRICE_BYTES; i++) {
            raw[IV_BYTES + i] = (byte) (plain[i] ^ pad[i]);
        }
        m[1].update(plain);
        System.arraycopy(m[1].doFinal(iv), 0, raw, IV_BYTES + PRICE_BYTES, SIG_BYTES);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    /**
     * Decodes web-safe base64 of exactly n bytes, with its "=" padding or
     * without (as Go's base64.RawURLEncoding.Strict() after the padding is
     * cut): null for another length, other padding, a character outside A-Z
     * a-z 0-9 '-' '_', or a last character with unused bits set.
     */
    static byte[] decodeBase64(String s, int n) {
        int raw = (n * 8 + 5) / 6; // characters without padding
        int padded = (n + 2) / 3 * 4;
        if (s.length() == padded && s.length() != raw) {
            for (int i = raw; i < padded; i++) {
                if (s.charAt(i) != '=') {
                    return null;
                }
            }
            s = s.substring(0, raw);
        } else if (s.length() != raw) {
            return null;
        }
        for (int i = 0; i < raw; i++) {
            char c = s.charAt(i);
            if (!Ascii.isAlnum(c) && c != '-' && c != '_') {
                return null;
            }
        }
        byte[] out = Base64.getUrlDecoder().decode(s);
        // Its one canonical spelling only (as Go's Strict decoding): the
        // unused low bits of the last character must be zero, so that no
        // two strings carry the same price.
        boolean canonical = Base64.getUrlEncoder().withoutPadding().encodeToString(out).equals(s);
        return out.length == n && canonical ? out : null;
    }

    private static Mac mac(SecretKeySpec key) {
        try {
            Mac m = Mac.getInstance(HMAC);
            m.init(key);
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 is missing from this JVM", e);
        }
    }
}
