package recbid.baseline;

/**
 * The server clock, the one time source of the books: request times,
 * counter ages and expiries, the sweep. It is the wall clock, or (flag
 * -clock-start, for tests and replays) a clock that reads a given instant
 * when the process starts and runs at real speed from there, measured on
 * System.nanoTime so that a step of the wall clock does not move it.
 */
final class ServerClock {
    private final boolean wall;
    private final long startMillis; // Unix ms of the start instant, rounded down
    private final long startNanosOfMilli; // what the rounding dropped, 0–999,999
    private final long startedNanos; // System.nanoTime() when the clock was made

    private ServerClock(boolean wall, long startMillis, long startNanosOfMilli) {
        this.wall = wall;
        this.startMillis = startMillis;
        this.startNanosOfMilli = startNanosOfMilli;
        this.startedNanos = System.nanoTime();
    }

    /** The system's wall clock. */
    static ServerClock wall() {
        return new ServerClock(true, 0, 0);
    }

    /** A clock that reads the instant (Unix seconds and nanoseconds) now and advances at real speed. */
    static ServerClock startingAt(long seconds, int nanos) {
        return new ServerClock(false, seconds * 1000 + nanos / 1_000_000, nanos % 1_000_000);
    }

    /** Unix milliseconds now. */
    long millis() {
        if (wall) {
            return System.currentTimeMillis();
        }
        return startMillis + (startNanosOfMilli + System.nanoTime() - startedNanos) / 1_000_000;
    }

    /** Unix seconds now, rounded down. */
    long seconds() {
        return Math.floorDiv(millis(), 1000L);
    }
}
