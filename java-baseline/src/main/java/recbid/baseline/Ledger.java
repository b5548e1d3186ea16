package recbid.baseline;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The counters decisions read and win notices write: bids, wins and spend
 * per campaign and UTC day, and wins per (uid, campaign, period, window).
 * Updates are atomic, so concurrent wins are never lost.
 *
 * <p>Memory is bounded as in the Go server: daily counters live 8 days after
 * their last write and at most 1,000,000 are held; frequency counters live
 * one period after their last write and at most maxFreqCounters are held.
 * A full map first drops its expired counters, then the least recently
 * written sixteenth. Expired counters are also swept once a minute.
 */
final class Ledger {
    static final int MAX_DAY_COUNTERS = 1_000_000;
    static final int DEFAULT_MAX_FREQ_COUNTERS = 5_000_000;
    private static final long DAY_TTL_SECONDS = 8 * 24 * 3600;

    private record DayKey(String campaignId, long day) {}

    private record FreqKey(String uid, String campaignId, long periodS, long window) {}

    private static final class DayCounters {
        final LongAdder bids = new LongAdder(); // written on every bid, never read on the bidding path
        final AtomicLong wins = new AtomicLong();
        final AtomicLong spend = new AtomicLong(); // micros, read by every budget check
        volatile long touchedSeconds;
    }

    private static final class FreqCounter {
        final AtomicLong wins = new AtomicLong();
        volatile long touchedSeconds;
    }

    private final int maxFreqCounters;
    private final ConcurrentHashMap<DayKey, DayCounters> days = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<FreqKey, FreqCounter> freq = new ConcurrentHashMap<>();

    Ledger(int maxFreqCounters) {
        this.maxFreqCounters = maxFreqCounters > 0 ? maxFreqCounters : DEFAULT_MAX_FREQ_COUNTERS;
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

    /** Counts one (non-test) bid for the campaign's day. */
    void recordBid(String campaignId, long day) {
        long now = nowSeconds();
        DayCounters c = dayCounters(new DayKey(campaignId, day), now);
        c.bids.increment();
        c.touchedSeconds = now;
    }

    /** Adds one win and its price; uid is null when the bid had no user or no frequency cap. */
    void recordWin(String campaignId, long day, long price, String uid, long periodS, long window) {
        long now = nowSeconds();
        DayCounters c = dayCounters(new DayKey(campaignId, day), now);
        c.wins.incrementAndGet();
        c.spend.addAndGet(price);
        c.touchedSeconds = now;
        if (uid != null && periodS > 0) {
            FreqKey k = new FreqKey(uid, campaignId, periodS, window);
            FreqCounter f = freq.get(k);
            if (f == null) {
                makeRoom(freq, maxFreqCounters, e -> expired(e.getKey(), e.getValue(), now), v -> v.touchedSeconds);
                f = freq.computeIfAbsent(k, x -> new FreqCounter());
            }
            f.wins.incrementAndGet();
            f.touchedSeconds = now;
        }
    }

    private DayCounters dayCounters(DayKey k, long now) {
        DayCounters c = days.get(k);
        if (c == null) {
            makeRoom(days, MAX_DAY_COUNTERS, e -> expired(e.getValue(), now), v -> v.touchedSeconds);
            c = days.computeIfAbsent(k, x -> new DayCounters());
        }
        return c;
    }

    private static boolean expired(DayCounters c, long now) {
        return c.touchedSeconds + DAY_TTL_SECONDS <= now;
    }

    private static boolean expired(FreqKey k, FreqCounter c, long now) {
        return c.touchedSeconds + k.periodS() <= now;
    }

    /**
     * Before a counter is added to a full map: drops the expired counters,
     * then, if the map is still full, the least recently written sixteenth.
     * Rare, so it simply takes the map's lock.
     */
    private static <K, V> void makeRoom(Map<K, V> m, int max, Predicate<Map.Entry<K, V>> isExpired,
            Function<V, Long> lastWrite) {
        if (m.size() < max) {
            return;
        }
        synchronized (m) {
            if (m.size() < max) {
                return;
            }
            m.entrySet().removeIf(isExpired);
            if (m.size() < max) {
                return;
            }
            List<Map.Entry<K, V>> all = new ArrayList<>(m.entrySet());
            all.sort(Comparator.comparing(e -> lastWrite.apply(e.getValue())));
            for (Map.Entry<K, V> e : all.subList(0, all.size() / 16 + 1)) {
                m.remove(e.getKey());
            }
        }
    }

    /** Evicts the counters whose time to live has passed; returns how many went. */
    int sweep(long nowSeconds) {
        int before = days.size() + freq.size();
        days.values().removeIf(c -> expired(c, nowSeconds));
        freq.entrySet().removeIf(e -> expired(e.getKey(), e.getValue(), nowSeconds));
        return before - days.size() - freq.size();
    }

    private static long nowSeconds() {
        return System.currentTimeMillis() / 1000;
    }
}
