package recbid.baseline;

import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps every bid for its time to live (default 10 minutes), at most
 * maxBids records, and never drops a record before its time to live: a save
 * that finds maxBids unexpired records is refused (the bid becomes a no bid,
 * reason capacity). Records are queued in insertion order, which is expiry
 * order, so trimming only ever looks at the head of the queue. For the heap
 * a record costs, see {@link StateCaps}.
 */
final class BidStore {
    static final long DEFAULT_TTL_NANOS = 10L * 60 * 1_000_000_000;

    /** 128 random bits, written as 32 lowercase hex digits. */
    record BidId(long hi, long lo) {
        private static final HexFormat HEX = HexFormat.of();

        String toHex() {
            return HEX.toHexDigits(hi) + HEX.toHexDigits(lo);
        }

        /** Parses 32 hex digits, either case; null for anything else. */
        static BidId parse(String s) {
            if (s.length() != 32) {
                return null;
            }
            for (int i = 0; i < 32; i++) {
                if (!HexFormat.isHexDigit(s.charAt(i))) {
                    return null;
                }
            }
            return new BidId(HexFormat.fromHexDigitsToLong(s, 0, 16), HexFormat.fromHexDigitsToLong(s, 16, 32));
        }
    }

    /**
     * What the server keeps of a bid: uid and periodS only when the campaign
     * has a frequency cap; the exchange it was made for, whose price rules
     * read its win notice (the exchanges are loaded once, so they are the
     * rules in force when the bid was made).
     */
    record BidRecord(String campaignId, String creativeId, String uid, long timeMs, long price, boolean test,
            long periodS, Exchange exchange) {}

    /** A held bid; replaced whole (won = true) by its first valid win notice. */
    private record Entry(BidRecord rec, long expiresNanos, boolean won) {}

    /** The outcome of a save. */
    enum Saved { SAVED, ID_TAKEN, FULL }

    /** The outcome of a win notice for a bid. */
    enum ClaimStatus { UNKNOWN, PRICE_ABOVE_BID, CLAIMED, DUPLICATE }

    record Claim(ClaimStatus status, BidRecord record) {}

    private static final Claim UNKNOWN = new Claim(ClaimStatus.UNKNOWN, null);
    private static final Claim PRICE_ABOVE_BID = new Claim(ClaimStatus.PRICE_ABOVE_BID, null);

    private final long ttlNanos;
    private final int maxBids;
    private final ConcurrentHashMap<BidId, Entry> bids = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<BidId> order = new ConcurrentLinkedQueue<>(); // insertion order
    private final AtomicInteger size = new AtomicInteger(); // records held, and slots claimed by saves in progress
    private final ReentrantLock trimming = new ReentrantLock();

    BidStore(long ttlNanos, int maxBids) {
        if (maxBids <= 0) {
            throw new IllegalArgumentException("maxBids must be positive");
        }
        this.ttlNanos = ttlNanos > 0 ? ttlNanos : DEFAULT_TTL_NANOS;
        this.maxBids = maxBids;
    }

    /** The time to live in whole seconds, rounded up. */
    long ttlSeconds() {
        return (ttlNanos + 999_999_999L) / 1_000_000_000L;
    }

    /**
     * Keeps a record until now+ttl: SAVED; ID_TAKEN when the id is already
     * held (the caller draws another); FULL when maxBids unexpired records
     * are held, after the expired ones at the head were dropped. Nothing is
     * kept unless SAVED.
     */
    Saved save(BidId id, BidRecord rec, long nowNanos) {
        if (expiredAtHead(nowNanos)) {
            trim(nowNanos);
        }
        if (!claimSlot(nowNanos)) {
            return Saved.FULL;
        }
        if (bids.putIfAbsent(id, new Entry(rec, nowNanos + ttlNanos, false)) != null) {
            size.decrementAndGet();
            return Saved.ID_TAKEN;
        }
        order.add(id);
        return Saved.SAVED;
    }

    /**
     * Claims room for one record; when there is none, drops the expired
     * records and tries once more. It never waits: while another thread
     * trims (the once-a-minute sweep), it tries again at once and, still
     * full, refuses (the bid is a no bid, capacity), so that a Netty event
     * loop is never held by a sweep.
     */
    private boolean claimSlot(long nowNanos) {
        if (size.incrementAndGet() <= maxBids) {
            return true;
        }
        size.decrementAndGet();
        if (trimming.tryLock()) {
            try {
                dropExpired(nowNanos);
            } finally {
                trimming.unlock();
            }
        }
        if (size.incrementAndGet() <= maxBids) {
            return true;
        }
        size.decrementAndGet();
        return false;
    }

    private boolean expiredAtHead(long nowNanos) {
        BidId head = order.peek();
        Entry e = head == null ? null : bids.get(head);
        return e != null && e.expiresNanos() - nowNanos <= 0;
    }

    /**
     * Drops the expired records (the once-a-minute sweep, and saves that
     * find an expired head). One thread trims at a time (the only one that
     * takes from the queue); others skip, and the next save trims what is
     * left.
     */
    void trim(long nowNanos) {
        if (!trimming.tryLock()) {
            return;
        }
        try {
            dropExpired(nowNanos);
        } finally {
            trimming.unlock();
        }
    }

    /** Drops the expired records at the head of the queue; the caller holds the trimming lock. */
    private void dropExpired(long nowNanos) {
        BidId head;
        while ((head = order.peek()) != null) {
            Entry e = bids.get(head);
            if (e != null && e.expiresNanos() - nowNanos > 0) {
                break; // the oldest record is live, and so is every later one
            }
            order.poll();
            bids.remove(head);
            size.decrementAndGet();
        }
    }

    /** The live record of a bid, or null when it is unknown or expired. Changes nothing. */
    BidRecord peek(BidId id, long nowNanos) {
        Entry e = bids.get(id);
        return e == null || e.expiresNanos() - nowNanos <= 0 ? null : e.rec();
    }

    /**
     * Finds the bid and marks it won exactly once. An unknown or expired bid,
     * or a price above the bid's own, changes nothing.
     */
    Claim claim(BidId id, long price, long nowNanos) {
        Entry e = bids.get(id);
        if (e == null || e.expiresNanos() - nowNanos <= 0) {
            return UNKNOWN;
        }
        if (price > e.rec().price()) {
            return PRICE_ABOVE_BID;
        }
        // Exactly one notice swaps the entry for its won copy; every other one sees it won.
        boolean first = !e.won() && bids.replace(id, e, new Entry(e.rec(), e.expiresNanos(), true));
        return new Claim(first ? ClaimStatus.CLAIMED : ClaimStatus.DUPLICATE, e.rec());
    }

    int size() {
        return size.get();
    }
}
