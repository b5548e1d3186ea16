package recbid.baseline;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The counters decisions read and win notices write: bids, wins and spend
 * per campaign and UTC day, and wins per (uid, campaign, period, window).
 * Updates are atomic, so concurrent wins are never lost. Time is the
 * server clock, in whole seconds.
 *
 * <p>Memory is bounded without ever dropping a counter the books still
 * need. A day counter expires 8 days after its last write; a frequency
 * counter carries its own expiry, which a bid extends to the end of its
 * window (and never before the bid's record expires). Expired counters are
 * swept once a minute, and dropped when a map is at its cap. Before a bid
 * is made it {@linkplain #reserve reserves} the counters its win will
 * write; when one must be created and its map is at its cap with nothing
 * expired to drop, the bid is refused (no bid, reason capacity). So a win
 * never needs new room: it writes counters that exist, and re-creates one
 * above the cap only if it is somehow gone.
 */
final class Ledger {
    private static final long DAY_TTL_SECONDS = 8 * 24 * 3600;

    private record DayKey(String campaignId, long day) {}

    private record FreqKey(String uid, String campaignId, long periodS, long window) {}

    private interface Expiring {
        boolean expired(long nowSeconds);
    }

    private static final class DayCounters implements Expiring {
        final LongAdder bids = new LongAdder(); // written on every bid, never read on the bidding path
        final AtomicLong wins = new AtomicLong();
        final AtomicLong spend = new AtomicLong(); // micros, read by every budget check
        volatile long touchedSeconds;

        DayCounters(long nowSeconds) {
            touchedSeconds = nowSeconds;
        }

        @Override
        public boolean expired(long nowSeconds) {
            return touchedSeconds + DAY_TTL_SECONDS <= nowSeconds;
        }
    }

    private static final class FreqCounter implements Expiring {
        final AtomicLong wins = new AtomicLong();
        volatile long expiresAt; // Unix seconds; only changed under the map's lock of its key

        FreqCounter(long expiresAt) {
            this.expiresAt = expiresAt;
        }

        @Override
        public boolean expired(long nowSeconds) {
            return nowSeconds >= expiresAt;
        }
    }

    private final ServerClock clock;
    private final Counters<DayKey, DayCounters> days;
    private final Counters<FreqKey, FreqCounter> freq;

    Ledger(ServerClock clock, int maxDayCounters, int maxFreqCounters) {
        this.clock = clock;
        this.days = new Counters<>(maxDayCounters);
        this.freq = new Counters<>(maxFreqCounters);
    }

    /** The sum of the win prices (CPM micros) of the campaign's bids of that day. */
    long spent(String campaignId, long day) {
        DayCounters c = days.get(new DayKey(campaignId, day));
        return c == null ? 0 : c.spend.get();
    }

    /** The wins for (uid, campaign) in the frequency window. */
    long wins(String uid, String campaignId, long periodS, long window) {
        FreqCounter c = freq.get(new FreqKey(uid, campaignId, periodS, window));
        return c == null ? 0 : c.wins.get();
    }

    /**
     * Makes sure the counters the win of a bid would write exist, before the
     * bid is made: the day counter of (campaign, day) and, when uid is not
     * null, the frequency counter of (uid, campaign, period, window), whose
     * expiry becomes at least now + keepSeconds. False when a counter had to
     * be created and its map is full of counters still needed: the bid must
     * not be made.
     */
    boolean reserve(String campaignId, long day, String uid, long periodS, long window, long keepSeconds) {
        long now = clock.seconds();
        if (days.reserve(new DayKey(campaignId, day), now, () -> new DayCounters(now), null) == null) {
            return false;
        }
        if (uid == null) {
            return true;
        }
        long until = now + keepSeconds;
        return freq.reserve(new FreqKey(uid, campaignId, periodS, window), now, () -> new FreqCounter(until), f -> {
            f.expiresAt = Math.max(f.expiresAt, until);
            return f;
        }) != null;
    }

    /** Counts one (non-test) bid for the campaign's day. */
    void recordBid(String campaignId, long day) {
        long now = clock.seconds();
        DayCounters c = days.force(new DayKey(campaignId, day), () -> new DayCounters(now));
        c.bids.increment();
        c.touchedSeconds = now;
    }

    /**
     * Adds one win and its price; uid is null when the bid had no user or no
     * frequency cap. The win's frequency counter keeps its expiry; one that
     * is missing is created, above the cap if need be, for one period.
     */
    void recordWin(String campaignId, long day, long price, String uid, long periodS, long window) {
        long now = clock.seconds();
        DayCounters c = days.force(new DayKey(campaignId, day), () -> new DayCounters(now));
        c.wins.incrementAndGet();
        c.spend.addAndGet(price);
        c.touchedSeconds = now;
        if (uid != null && periodS > 0) {
            freq.force(new FreqKey(uid, campaignId, periodS, window), () -> new FreqCounter(now + periodS))
                    .wins.incrementAndGet();
        }
    }

    /** Drops the counters that have expired; returns how many went. */
    int sweep() {
        long now = clock.seconds();
        return days.sweep(now) + freq.sweep(now);
    }

    /**
     * A map of at most max counters that never evicts one still needed: a
     * counter is created only when there is room, after dropping the expired
     * ones when the map is full. Only sweep removes, one sweep at a time,
     * and it removes a counter under the map's lock of its key, so an
     * expiry extended under that lock is never lost to it.
     */
    private static final class Counters<K, V extends Expiring> {
        private final ConcurrentHashMap<K, V> map = new ConcurrentHashMap<>();
        private final AtomicInteger size = new AtomicInteger(); // counters held, and slots claimed by creations
        private final int max;
        private long fullSweepSecond = Long.MIN_VALUE; // guarded by sweeping
        private final ReentrantLock sweeping = new ReentrantLock();

        Counters(int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("max must be positive");
            }
            this.max = max;
        }

        V get(K k) {
            return map.get(k);
        }

        /**
         * The counter of k: an existing one (passed through update, under
         * the key's lock, when update is not null), or a new one from create
         * when there is room; null when there is none.
         */
        V reserve(K k, long now, Supplier<V> create, UnaryOperator<V> update) {
            for (;;) {
                V v = update == null ? map.get(k) : map.computeIfPresent(k, (key, old) -> update.apply(old));
                if (v != null) {
                    return v;
                }
                if (!claimSlot(now)) {
                    return null;
                }
                V fresh = create.get();
                if (map.putIfAbsent(k, fresh) == null) {
                    return fresh;
                }
                size.decrementAndGet(); // another request created it meanwhile: use that one
            }
        }

        /** The counter of k, created when absent even above the cap (a win never needs new room). */
        V force(K k, Supplier<V> create) {
            V v = map.get(k);
            if (v != null) {
                return v;
            }
            V fresh = create.get();
            V prev = map.putIfAbsent(k, fresh);
            if (prev != null) {
                return prev;
            }
            size.incrementAndGet();
            return fresh;
        }

        /**
         * Claims room for one counter. A full map is swept first, at most
         * once a second of the clock: expiries are whole seconds, so a
         * second sweep within the same second would find nothing more.
         */
        private boolean claimSlot(long now) {
            if (size.incrementAndGet() <= max) {
                return true;
            }
            size.decrementAndGet();
            // Never waits: while another thread sweeps (the once-a-minute
            // sweep), this claim tries again at once and, still full, is
            // refused (capacity), so that a Netty event loop is never held.
            if (sweeping.tryLock()) {
                try {
                    if (size.get() >= max && fullSweepSecond != now) {
                        fullSweepSecond = now;
                        sweepLocked(now);
                    }
                } finally {
                    sweeping.unlock();
                }
            }
            if (size.incrementAndGet() <= max) {
                return true;
            }
            size.decrementAndGet();
            return false;
        }

        /** Removes the expired counters; returns how many went. */
        int sweep(long now) {
            sweeping.lock(); // the periodic sweep may wait: it runs on a thread of its own
            try {
                return sweepLocked(now);
            } finally {
                sweeping.unlock();
            }
        }

        /** Removes the expired counters; the caller holds sweeping. */
        private int sweepLocked(long now) {
            int n = 0;
            for (Map.Entry<K, V> e : map.entrySet()) {
                // Checked again under the key's lock, where a reservation extends an expiry.
                if (e.getValue().expired(now)
                        && map.computeIfPresent(e.getKey(), (key, v) -> v.expired(now) ? null : v) == null) {
                    size.decrementAndGet();
                    n++;
                }
            }
            return n;
        }
    }
}
