package recbid.baseline;

/** The command line, read the way Go's flag package reads the Go server's: -name value or -name=value. */
final class Options {
    static final String USAGE = """
            Usage: run.sh [flags]

              -addr HOST:PORT        public listen address (default :9090)
              -campaigns FILE        campaigns file (default testdata/campaigns.json)
              -seat SEAT             seat id written in bids (default dsp)
              -public-url URL        base URL of win notices in nurl (default http:// + the
                                     listen address, localhost when its host is empty)
              -safety-margin DUR     kept back from tmax (default 5ms)
              -bid-ttl DUR           how long bid records wait for their win notice (default 10m)
              -max-bids N            most bid records held; the oldest go first (default 4000000)
              -max-freq-counters N   most frequency counters held; expired ones, then the least
                                     recently written go first (default 5000000)
              -max-threads N         Tomcat's request threads (default $TOMCAT_MAX_THREADS or 200)
            """;

    /** -h or -help. */
    static final class HelpException extends Exception {
        HelpException() {
            super("help", null, false, false);
        }
    }

    private static final java.util.Set<String> FLAGS = java.util.Set.of("addr", "campaigns", "seat", "public-url",
            "safety-margin", "bid-ttl", "max-bids", "max-freq-counters", "max-threads");

    String addr = ":9090";
    String host;
    int port;
    String campaigns = "testdata/campaigns.json";
    String seat = "dsp";
    String publicUrl;
    long safetyMarginNanos = 5_000_000L;
    long bidTtlNanos = BidStore.DEFAULT_TTL_NANOS;
    int maxBids = BidStore.DEFAULT_MAX_BIDS;
    int maxFreqCounters = Ledger.DEFAULT_MAX_FREQ_COUNTERS;
    int maxThreads;

    static Options parse(String[] args) throws HelpException {
        Options o = new Options();
        String threads = System.getenv("TOMCAT_MAX_THREADS");
        o.maxThreads = threads == null || threads.isEmpty() ? 200 : positive("TOMCAT_MAX_THREADS", threads);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("-") || a.equals("-") || a.equals("--")) {
                throw new IllegalArgumentException("unexpected argument " + a);
            }
            String name = a.startsWith("--") ? a.substring(2) : a.substring(1);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (name.equals("h") || name.equals("help")) {
                throw new HelpException();
            }
            if (!FLAGS.contains(name)) {
                throw new IllegalArgumentException("flag provided but not defined: -" + name);
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("flag needs an argument: -" + name);
                }
                value = args[++i];
            }
            switch (name) {
                case "addr" -> o.addr = value;
                case "campaigns" -> o.campaigns = value;
                case "seat" -> o.seat = value;
                case "public-url" -> o.publicUrl = value;
                // As in the Go server, zero or less means the default.
                case "safety-margin" -> o.safetyMarginNanos = orDefault(duration(name, value), 5_000_000L);
                case "bid-ttl" -> o.bidTtlNanos = orDefault(duration(name, value), BidStore.DEFAULT_TTL_NANOS);
                case "max-bids" -> o.maxBids = (int) orDefault(integer(name, value), BidStore.DEFAULT_MAX_BIDS);
                case "max-freq-counters" -> o.maxFreqCounters =
                        (int) orDefault(integer(name, value), Ledger.DEFAULT_MAX_FREQ_COUNTERS);
                case "max-threads" -> o.maxThreads = positive(name, value);
                default -> throw new IllegalArgumentException("flag provided but not defined: -" + name);
            }
        }
        int colon = o.addr.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("-addr " + o.addr + ": missing port");
        }
        o.host = o.addr.substring(0, colon);
        if (o.host.startsWith("[") && o.host.endsWith("]")) {
            o.host = o.host.substring(1, o.host.length() - 1);
        }
        try {
            o.port = Integer.parseInt(o.addr.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-addr " + o.addr + ": bad port");
        }
        if (o.port < 0 || o.port > 65535) {
            throw new IllegalArgumentException("-addr " + o.addr + ": bad port");
        }
        if (o.publicUrl == null || o.publicUrl.isEmpty()) {
            o.publicUrl = defaultPublicUrl(o.host, o.port);
        }
        while (o.publicUrl.endsWith("/")) {
            o.publicUrl = o.publicUrl.substring(0, o.publicUrl.length() - 1);
        }
        return o;
    }

    /**
     * http:// + the listen address, with localhost standing in for an empty
     * or unspecified host (":9090", "0.0.0.0:9090"), which no exchange could
     * call back.
     */
    static String defaultPublicUrl(String host, int port) {
        if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.matches("[0:]+")) {
            host = "localhost";
        }
        return "http://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    private static long orDefault(long v, long dflt) {
        return v > 0 ? v : dflt;
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value " + value + " for -" + name);
        }
    }

    private static int positive(String name, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("invalid value " + value + " for -" + name);
    }

    /** A Go duration: "5ms", "1.5s", "10m", "1h30m", "-1s". */
    static long duration(String name, String s) {
        long sign = 1;
        if (s.startsWith("-") || s.startsWith("+")) {
            sign = s.startsWith("-") ? -1 : 1;
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return 0;
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("invalid duration for -" + name);
        }
        long total = 0;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            int unitStart = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            long unit = switch (s.substring(unitStart, i)) {
                case "ns" -> 1L;
                case "us", "µs", "μs" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                default -> throw new IllegalArgumentException("invalid duration " + s + " for -" + name);
            };
            if (unitStart == start) {
                throw new IllegalArgumentException("invalid duration " + s + " for -" + name);
            }
            total += new java.math.BigDecimal(s.substring(start, unitStart)).multiply(java.math.BigDecimal.valueOf(unit))
                    .longValue();
        }
        return sign * total;
    }
}
