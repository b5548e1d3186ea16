package recbid.baseline;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The decision of docs/protocol.md section 3 and the win accounting of
 * section 5, the same stages in the same order as the Go server's
 * bidder/engine.go: currency, match (block by block in priority order),
 * floor, frequency, budget; the deadline checked after matching and again
 * before the bid is kept. The winner's bid is made only when the state has
 * room for it: the counters its win will write and its record (else no
 * bid, reason capacity), so that a win notice never needs new room.
 */
final class Engine {
    /** Why a request got no bid, as the X-Nobid-Reason header spells it; in the order of the stages. */
    enum NoBidReason {
        NONE(""), CURRENCY("currency"), NO_MATCH("no_match"), BELOW_FLOOR("below_floor"), FREQ_CAP("freq_cap"),
        BUDGET("budget"), TIMEOUT("timeout"), CAPACITY("capacity");

        final String header;

        NoBidReason(String header) {
            this.header = header;
        }

        NoBidReason max(NoBidReason o) {
            return o.ordinal() > ordinal() ? o : this;
        }
    }

    /** The outcome of one bid request: a reason, or the winning campaign, creative and bid id. */
    record Decision(NoBidReason reason, Campaign campaign, Campaign.Creative creative, BidStore.BidId bidId) {
        static Decision noBid(NoBidReason reason) {
            return new Decision(reason, null, null, null);
        }

        boolean isBid() {
            return reason == NoBidReason.NONE;
        }
    }

    /** What a win notice did. */
    enum WinOutcome { UNKNOWN_BID, PRICE_ABOVE_BID, RECORDED, TEST, DUPLICATE }

    static final long DEFAULT_TMAX_MS = 100;

    private final long safetyMarginNanos;
    private final Ledger ledger;
    private final BidStore bids;
    private final SecureRandom random = new SecureRandom(); // the OS source (NativePRNG on Linux)

    Engine(long safetyMarginNanos, Ledger ledger, BidStore bids) {
        this.safetyMarginNanos = safetyMarginNanos;
        this.ledger = ledger;
        this.bids = bids;
    }

    Decision decide(Catalog cat, BidRequest req) {
        long tmaxNanos = (req.tmaxMs > 0 ? req.tmaxMs : DEFAULT_TMAX_MS) * 1_000_000L;
        long deadline = req.arrivedNanos + tmaxNanos - safetyMarginNanos;
        if (System.nanoTime() - deadline >= 0) {
            return Decision.noBid(NoBidReason.TIMEOUT); // waited past its deadline: not decided at all
        }

        if (req.cur != null && !req.cur.equalsIgnoreCase("USD")) {
            return Decision.noBid(NoBidReason.CURRENCY);
        }
        TargetingIndex.Matcher m = cat.index().prepare(req);
        if (m == null) {
            return Decision.noBid(NoBidReason.NO_MATCH);
        }
        // Campaigns are numbered by descending bid, so those that clear the
        // floor are exactly the numbers below a bound.
        int limit = cat.aboveFloor(req.floor);
        NoBidReason reason = NoBidReason.NO_MATCH; // the furthest stage reached so far
        int n = cat.size();
        for (int lo = 0; lo < n; lo += TargetingIndex.BLOCK_SIZE) {
            if (lo >= limit && reason != NoBidReason.NO_MATCH) {
                break; // only campaigns below the floor are left: the reason stands
            }
            m.matchBlock(req.timeMs, Math.min(lo + TargetingIndex.BLOCK_SIZE, n));
            if (m.candidateCount() == 0) {
                continue;
            }
            reason = reason.max(NoBidReason.BELOW_FLOOR);
            m.keepBelow(limit);
            if (m.candidateCount() == 0) {
                continue;
            }
            if (System.nanoTime() - deadline >= 0) {
                return Decision.noBid(NoBidReason.TIMEOUT);
            }
            int[] cands = Arrays.copyOf(m.candidates(), m.candidateCount());
            Caps caps = applyCaps(cat, req, cands);
            if (caps.winner() >= 0) {
                if (System.nanoTime() - deadline >= 0) {
                    return Decision.noBid(NoBidReason.TIMEOUT);
                }
                return bid(cat.get(caps.winner()), req);
            }
            reason = reason.max(caps.reason());
        }
        return Decision.noBid(reason);
    }

    /** The campaign number that passed the caps, or -1 and the stage at which the last candidates dropped out. */
    private record Caps(int winner, NoBidReason reason) {}

    /**
     * Walks the candidates in priority order through the frequency and
     * budget stages and returns the first that passes both. The best
     * candidate usually wins, so it is tried before the rest is sorted.
     */
    private Caps applyCaps(Catalog cat, BidRequest req, int[] cands) {
        int best = 0;
        for (int i = 1; i < cands.length; i++) {
            if (cands[i] < cands[best]) {
                best = i;
            }
        }
        int first = cands[best];
        cands[best] = cands[0];
        cands[0] = first;
        long day = Campaign.dayOf(req.timeMs);
        NoBidReason reason = NoBidReason.FREQ_CAP;
        for (int i = 0; i < cands.length; i++) {
            if (i == 1) {
                Arrays.sort(cands, 1, cands.length);
            }
            Campaign c = cat.get(cands[i]);
            if (c.freqCapped()) {
                if (req.uid == null) {
                    continue; // no user to count: drops at the frequency stage
                }
                if (ledger.wins(req.uid, c.id(), c.freqPeriodS(), c.window(req.timeMs)) >= c.freqImpressions()) {
                    continue;
                }
            }
            // A budget of 0 never bids: bid_cpm > 0.
            if (c.dailyBudget() != Campaign.NO_DAILY_LIMIT
                    && ledger.spent(c.id(), day) + c.bidCpm() > c.dailyBudget() * 1000) {
                reason = NoBidReason.BUDGET;
                continue;
            }
            return new Caps(cands[i], NoBidReason.NONE);
        }
        return new Caps(-1, reason);
    }

    /**
     * Makes the bid for campaign c, in this order: reserves the counters its
     * win will write (not for a test bid), keeps its record, counts it (not
     * for a test bid). When the counters or the record find no room it is
     * no bid, reason capacity, and the bid is neither kept nor counted.
     */
    private Decision bid(Campaign c, BidRequest req) {
        Campaign.Creative cr = c.creativeFor(req.w, req.h, req.secure);
        boolean capped = c.freqCapped();
        long day = Campaign.dayOf(req.timeMs);
        if (!req.test && !reserve(c, req, day)) {
            return Decision.noBid(NoBidReason.CAPACITY);
        }
        BidStore.BidRecord rec = new BidStore.BidRecord(c.id(), cr.id(), capped ? req.uid : null, req.timeMs,
                c.bidCpm(), req.test, capped ? c.freqPeriodS() : 0, req.exchange);
        BidStore.BidId id;
        BidStore.Saved saved;
        do {
            id = newBidId();
            saved = bids.save(id, rec, System.nanoTime());
        } while (saved == BidStore.Saved.ID_TAKEN); // a collision of 128 random bits: draw again
        if (saved == BidStore.Saved.FULL) {
            return Decision.noBid(NoBidReason.CAPACITY);
        }
        if (!req.test) {
            ledger.recordBid(c.id(), day);
        }
        return new Decision(NoBidReason.NONE, c, cr, id);
    }

    /**
     * Reserves the day counter of the bid and, for a frequency-capped
     * campaign, its (uid, campaign) frequency counter, kept until the end of
     * the request's window (as far ahead of now as the window ends after the
     * request time) and at least as long as the bid's record: its time to
     * live, plus a second since the ledger counts whole seconds of the clock
     * rounded down.
     */
    private boolean reserve(Campaign c, BidRequest req, long day) {
        if (!c.freqCapped() || req.uid == null) {
            return ledger.reserve(c.id(), day, null, 0, 0, 0);
        }
        long window = c.window(req.timeMs);
        long windowEnd = (window + 1) * c.freqPeriodS(); // Unix seconds
        long keep = Math.max(windowEnd - Math.floorDiv(req.timeMs, 1000L), bids.ttlSeconds() + 1);
        return ledger.reserve(c.id(), day, req.uid, c.freqPeriodS(), window, keep);
    }

    /** 128 bits from the operating system's secure source, so that win notices cannot be forged by guessing. */
    private BidStore.BidId newBidId() {
        byte[] b = new byte[16];
        random.nextBytes(b);
        ByteBuffer bb = ByteBuffer.wrap(b);
        return new BidStore.BidId(bb.getLong(), bb.getLong());
    }

    /**
     * The live record of a bid, for a win notice to check before its price:
     * which exchange the bid was made for, and so how its price is read.
     * Null when the bid is unknown or expired.
     */
    BidStore.BidRecord peek(BidStore.BidId id) {
        return bids.peek(id, System.nanoTime());
    }

    /**
     * Records the exchange's win notice at the clearing price (CPM micros).
     * The first valid notice adds the price to the campaign's spend for the
     * UTC day of the bid's request time and one win to the (uid, campaign)
     * frequency window; a test bid records nothing; a repeat changes nothing.
     */
    WinOutcome win(BidStore.BidId id, long price) {
        BidStore.Claim claim = bids.claim(id, price, System.nanoTime());
        switch (claim.status()) {
            case UNKNOWN:
                return WinOutcome.UNKNOWN_BID;
            case PRICE_ABOVE_BID:
                return WinOutcome.PRICE_ABOVE_BID;
            case DUPLICATE:
                return WinOutcome.DUPLICATE;
            default:
                break;
        }
        BidStore.BidRecord rec = claim.record();
        if (rec.test()) {
            return WinOutcome.TEST;
        }
        boolean counted = rec.periodS() > 0 && rec.uid() != null;
        ledger.recordWin(rec.campaignId(), Campaign.dayOf(rec.timeMs()), price, counted ? rec.uid() : null,
                rec.periodS(), counted ? Campaign.window(rec.timeMs(), rec.periodS()) : 0);
        return WinOutcome.RECORDED;
    }
}
