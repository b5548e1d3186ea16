package recbid.baseline;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * The caps of the bounded state: bid records, frequency counters, day
 * counters. A cap not given on the command line (or given as 0) is derived
 * from the heap the state can live in ({@link #stateHeapBytes}) and the
 * measured heap cost of one entry, so that a full state answers no bid,
 * reason capacity, instead of running the JVM out of memory.
 *
 * <p>Shares of that heap: bid records half, frequency counters a fifth, day
 * counters a twentieth (and at most 1,000,000); the last quarter is left to
 * the catalog, Tomcat and the requests in flight. README.md ("Memory")
 * gives the measurements and the caps they make for common heaps.
 */
record StateCaps(int maxBids, int maxFreqCounters, int maxDayCounters) {
    /**
     * Heap bytes per bid record with a 32-byte uid (a frequency-capped
     * campaign's bid keeps the uid; without one, about 178): map node, id,
     * entry, record, queue node, uid string. Measured, see README.md.
     */
    static final long BID_BYTES = 250;
    /** Heap bytes per frequency counter with a 32-byte uid: map node, key, uid string, counter. Measured. */
    static final long FREQ_COUNTER_BYTES = 195;
    /** Heap bytes per day counter: map node, key, counters (a LongAdder not yet contended). Measured. */
    static final long DAY_COUNTER_BYTES = 190;
    /** The day counters' cap on a large heap. */
    static final int MAX_DAY_COUNTERS = 1_000_000;

    /** The caps for a heap of heapBytes; the caps given win when positive. */
    static StateCaps derive(long heapBytes, int maxBids, int maxFreqCounters, int maxDayCounters) {
        return new StateCaps(
                maxBids > 0 ? maxBids : share(heapBytes, 50, BID_BYTES),
                maxFreqCounters > 0 ? maxFreqCounters : share(heapBytes, 20, FREQ_COUNTER_BYTES),
                maxDayCounters > 0 ? maxDayCounters : Math.min(MAX_DAY_COUNTERS, share(heapBytes, 5, DAY_COUNTER_BYTES)));
    }

    /**
     * The heap the state can live in: Runtime.maxMemory(), or less when the
     * collector gives long-lived objects a fixed old generation (the
     * parallel and serial collectors: two thirds of the heap by default),
     * that generation's size, since records and counters that outgrow it
     * would leave the JVM collecting without end instead of failing closed.
     */
    static long stateHeapBytes() {
        long heap = Runtime.getRuntime().maxMemory();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            String name = pool.getName();
            long max = pool.getUsage().getMax();
            if (pool.getType() == MemoryType.HEAP && (name.endsWith("Old Gen") || name.endsWith("Tenured Gen"))
                    && max > 0) {
                heap = Math.min(heap, max);
            }
        }
        return heap;
    }

    /** How many entries of entryBytes fit in percent of the heap; at least 1. */
    private static int share(long heapBytes, int percent, long entryBytes) {
        long n = heapBytes / 100 * percent / entryBytes;
        return (int) Math.max(1, Math.min(n, Integer.MAX_VALUE - 8));
    }
}
