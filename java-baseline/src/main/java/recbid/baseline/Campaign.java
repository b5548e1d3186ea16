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
        BigDecimal price,
        List<String> deals, // deal ids (contract version 3); the form protocol has none
        boolean dealsOnly) { // open_auction false: bids only in its deals, so never on the form endpoint

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

    /**
     * The first banner in file order of the request's size (secure when the
     * request demands it), or null. Video and native creatives never serve
     * the form protocol, whatever their size.
     */
    Creative creativeFor(int w, int h, boolean secure) {
        for (Creative cr : creatives) {
            if (cr.kind() == Kind.BANNER && cr.w() == w && cr.h() == h && (cr.secure() || !secure)) {
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

    /** What a creative is (contract version 3): a banner (the default), a video or a native ad. */
    enum Kind { BANNER, VIDEO, NATIVE }

    /**
     * One ad of a campaign; adm is the HTML markup a banner's bid carries,
     * built once at load (null for a video or native ad, which the form
     * protocol never serves). w and h are a banner's or a video's size; a
     * native ad has none. The other fields of a video or native ad are
     * validated at load and not kept: nothing here serves them.
     */
    record Creative(String id, Kind kind, int w, int h, boolean secure, String imageUrl, String clickUrl, String adm) {}
}
