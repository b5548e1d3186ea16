package recbid.baseline;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Money as a long count of micros (1 USD = 1,000,000 micros), parsed from and
 * written to decimal text without binary floating point.
 */
final class Micros {
    private Micros() {}

    static final long PER_UNIT = 1_000_000L;
    /** Every decimal the server accepts is at most one billion. */
    static final long MAX = 1_000_000_000L * PER_UNIT;
    /** What {@link #parse} returns for text that is not a decimal of the contract. */
    static final long INVALID = -1;

    /**
     * Parses a non-negative decimal with at most six fractional digits ("2.5",
     * "0.000001", "3"). A sign, an exponent, a leading or trailing point,
     * spaces, more than six fractional digits or a value above {@link #MAX}
     * give {@link #INVALID}.
     */
    static long parse(String s) {
        int n = s.length();
        if (n == 0) {
            return INVALID;
        }
        long units = 0;
        int i = 0;
        for (; i < n && s.charAt(i) != '.'; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return INVALID;
            }
            units = units * 10 + (c - '0');
            if (units > MAX / PER_UNIT) {
                return INVALID;
            }
        }
        if (i == 0) {
            return INVALID;
        }
        long frac = 0;
        if (i < n) { // s.charAt(i) == '.'
            int digits = n - i - 1;
            if (digits == 0 || digits > 6) {
                return INVALID;
            }
            long scale = PER_UNIT;
            for (int j = i + 1; j < n; j++) {
                char c = s.charAt(j);
                if (c < '0' || c > '9') {
                    return INVALID;
                }
                scale /= 10;
                frac += (c - '0') * scale;
            }
        }
        long m = units * PER_UNIT + frac;
        return m > MAX ? INVALID : m;
    }

    /** The shortest decimal that denotes micros exactly: 2500000 is 2.5, 3000000 is 3. */
    static BigDecimal toDecimal(long micros) {
        return new BigDecimal(BigInteger.valueOf(micros), 6).stripTrailingZeros();
    }

    /** {@link #toDecimal} as plain text. */
    static String format(long micros) {
        return toDecimal(micros).toPlainString();
    }
}
