package recbid.baseline;

import java.math.BigDecimal;
import java.util.List;

/**
 * One validated campaign: money in micros, the flight as [startMs, endMs) in
 * request-time milliseconds, and the bid price as the decimal the responses
 * write.
 */
record Campaign(
        String id,
        String advertiser,
        List<String> adomain, // as written in the file, echoed in bids
        List<String> cat, // as written in the file, echoed in bids
        boolean active,
        long bidCpm, // micros
        long dailyBudget, // micros; NO_DAILY_LIMIT when absent; 0: never bids
        long startMs,
        long endMs,
        long freqImpressions, // 0: no frequency cap
        long freqPeriodS,
        Targeting targeting,
        List<Creative> creatives,
        BigDecimal price) {

    /** dailyBudget of a campaign without one (the file's daily_budget absent or null). */
    static final long NO_DAILY_LIMIT = -1;

    /** The longest frequency period, 365 days. */
    static final long MAX_FREQ_PERIOD_S = 31_536_000;

    /** Whether a frequency cap applies. */
    boolean freqCapped() {
        return freqImpressions > 0 && freqPeriodS > 0;
    }

    /** The frequency window a request time (Unix ms) falls in. */
    long window(long requestMs) {
        return window(requestMs, freqPeriodS);
    }

    static long window(long requestMs, long periodS) {
        return Math.floorDiv(Math.floorDiv(requestMs, 1000L), periodS);
    }

    /** The UTC day of a Unix millisecond time, in days since 1970-01-01. */
    static long dayOf(long ms) {
        return Math.floorDiv(ms, 86_400_000L);
    }

    /** The first creative in file order of the request's size (secure when the request demands it), or null. */
    Creative creativeFor(int w, int h, boolean secure) {
        for (Creative cr : creatives) {
            if (cr.w() == w && cr.h() == h && (cr.secure() || !secure)) {
                return cr;
            }
        }
        return null;
    }

    /** The targeting lists; an empty list does not restrict. */
    record Targeting(
            List<String> countries,
            List<String> regions,
            List<String> cities,
            List<String> os,
            List<Integer> devtypes,
            List<String> sites,
            List<String> bundles,
            List<String> excludeSites,
            List<String> excludeBundles,
            List<String> cats,
            List<Integer> hours,
            List<String> exchanges) {} // exchange ids

    /** One ad of a campaign; adm is the HTML markup the bid carries, built once at load. */
    record Creative(String id, int w, int h, boolean secure, String imageUrl, String clickUrl, String adm) {}
}
