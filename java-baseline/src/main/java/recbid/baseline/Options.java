package recbid.baseline;

/**
 * The command line, read the way Go's flag package reads the Go server's:
 * -name value or -name=value; a boolean flag alone (-trust-request-ts) is
 * true, and takes its value only as -name=value.
 */
final class Options {
    static final String USAGE = """
            Usage: run.sh [flags]

              -addr HOST:PORT        public listen address (default 127.0.0.1:9090); a host that is
                                     not loopback (127.0.0.0/8, ::1, localhost) needs -public-url
              -campaigns FILE        campaigns file (default testdata/campaigns.json)
              -exchanges FILE        exchanges file (ids, allowed sources, tokens, price keys; read
                                     once, at start); without it, one open exchange "default" with
                                     clear prices on the bare paths /dsp/recbid and /dsp/win
              -trusted-proxies CIDRS comma-separated CIDRs of proxies whose X-Forwarded-For names
                                     the client, for the exchanges' allow lists (default none)
              -seat SEAT             seat id written in bids (default dsp)
              -public-url URL        base URL of win notices in nurl (default http:// + the
                                     listen address; required when -addr is not loopback)
              -trust-request-ts      take the request's ts, when given, as the request time (for
                                     replays and tests; default: the server clock at arrival)
              -clock-start RFC3339   start the server clock at this instant, running at real speed
                                     from there (for tests and replays; default: the wall clock)
              -safety-margin DUR     kept back from tmax (default 5ms)
              -bid-ttl DUR           how long bid records wait for their win notice (default 10m,
                                     at most 24h)
              -max-bids N            most bid records held (default, or 0: derived from the heap,
                                     about half of it); a record is never evicted before its time
                                     to live: a bid that finds no room is a no bid, reason capacity
              -max-freq-counters N   most frequency counters held (default, or 0: derived from the
                                     heap, about a fifth of it); one still needed is never evicted:
                                     a bid that needs a new one and finds no room is a no bid,
                                     reason capacity
              -max-day-counters N    most (campaign, day) budget counters held (default, or 0: derived
                                     from the heap, a twentieth of it, at most 1000000); as above
              -http tomcat|netty     the HTTP front end (default tomcat): embedded Tomcat 10.1, or
                                     Netty 4.1 (same endpoints, same answers)
              -max-threads N         Tomcat's request threads (default $TOMCAT_MAX_THREADS or 200;
                                     Tomcat only)
              -event-loops N         Netty's event-loop threads (default: the available
                                     processors; Netty only)
            """;

    /** The longest -bid-ttl, as in the Go server: a bid's day counters are kept at least a day. */
    static final long MAX_BID_TTL_NANOS = 24L * 3600 * 1_000_000_000;

    /** -h or -help. */
    static final class HelpException extends Exception {
        HelpException() {
            super("help", null, false, false);
        }
    }

    /**
     * A setting the server refuses to start with (a non-loopback -addr
     * without -public-url, a malformed -clock-start): one line, exit
     * status 2, no usage text.
     */
    static final class RefusedException extends Exception {
        RefusedException(String message) {
            super(message, null, false, false);
        }
    }

    private static final java.util.Set<String> FLAGS = java.util.Set.of("addr", "campaigns", "exchanges",
            "trusted-proxies", "seat", "public-url", "trust-request-ts", "clock-start", "safety-margin", "bid-ttl", "max-bids", "max-freq-counters", "max-day-counters",
            "max-threads", "http", "event-loops");
    private static final java.util.Set<String> BOOLEAN_FLAGS = java.util.Set.of("trust-request-ts");

    String addr = "127.0.0.1:9090";
    String host;
    int port;
    String campaigns = "testdata/campaigns.json";
    String exchanges; // null: the implicit exchange "default"
    Proxies trustedProxies = Proxies.none();
    String seat = "dsp";
    String publicUrl;
    boolean trustRequestTs;
    ServerClock clock = ServerClock.wall();
    long safetyMarginNanos = 5_000_000L;
    long bidTtlNanos = BidStore.DEFAULT_TTL_NANOS;
    int maxBids; // 0: derived from the heap (StateCaps)
    int maxFreqCounters; // 0: derived from the heap (StateCaps)
    int maxDayCounters; // 0: derived from the heap (StateCaps)
    int maxThreads;
    /** -http: the front end. */
    Http http = Http.TOMCAT;
    int eventLoops = Runtime.getRuntime().availableProcessors();

    /** The HTTP front ends, over the same {@link Api}. */
    enum Http {
        TOMCAT, NETTY
    }

    static Options parse(String[] args) throws HelpException, RefusedException {
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
            if (value == null && BOOLEAN_FLAGS.contains(name)) {
                value = "true";
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
                case "exchanges" -> o.exchanges = value.isEmpty() ? null : value; // "" is none, as in Go
                case "trusted-proxies" -> o.trustedProxies = proxies(name, value);
                case "seat" -> o.seat = value;
                case "public-url" -> o.publicUrl = value;
                case "trust-request-ts" -> o.trustRequestTs = bool(name, value);
                case "clock-start" -> o.clock = clockStart(value);
                // As in the Go server, zero or less means the default.
                case "safety-margin" -> o.safetyMarginNanos = orDefault(duration(name, value), 5_000_000L);
                case "bid-ttl" -> o.bidTtlNanos = orDefault(duration(name, value), BidStore.DEFAULT_TTL_NANOS);
                // Zero or less: derived from the heap.
                case "max-bids" -> o.maxBids = Math.max(integer(name, value), 0);
                case "max-freq-counters" -> o.maxFreqCounters = Math.max(integer(name, value), 0);
                case "max-day-counters" -> o.maxDayCounters = Math.max(integer(name, value), 0);
                case "max-threads" -> o.maxThreads = positive(name, value);
                case "http" -> o.http = switch (value) {
                    case "tomcat" -> Http.TOMCAT;
                    case "netty" -> Http.NETTY;
                    default -> throw new IllegalArgumentException(
                            "invalid value " + value + " for -http: must be tomcat or netty");
                };
                case "event-loops" -> o.eventLoops = positive(name, value);
                default -> throw new IllegalArgumentException("flag provided but not defined: -" + name);
            }
        }
        if (o.bidTtlNanos > MAX_BID_TTL_NANOS) {
            throw new IllegalArgumentException("-bid-ttl: at most 24h");
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
            if (!isLoopback(o.host)) {
                // An exchange could reach this server, and the win URL must be the one it reaches.
                throw new RefusedException("-addr " + o.addr + " is not a loopback address, so -public-url is required:"
                        + " pass the URL exchanges reach this server at (e.g. -public-url https://bid.example.com)");
            }
            o.publicUrl = defaultPublicUrl(o.host, o.port);
        }
        while (o.publicUrl.endsWith("/")) {
            o.publicUrl = o.publicUrl.substring(0, o.publicUrl.length() - 1);
        }
        return o;
    }

    /**
     * Whether a listen host is loopback only: localhost (lower case, as the
     * Go server compares it), an IPv4 literal in 127.0.0.0/8 or the IPv6
     * literal ::1 (or an IPv4-mapped 127.x address), as Go's net.ParseIP and
     * IsLoopback read them. No name is resolved. An empty host (":9090"),
     * 0.0.0.0 and :: listen on every interface, so they are not loopback.
     */
    static boolean isLoopback(String host) {
        if (host.equals("localhost")) {
            return true;
        }
        if (host.indexOf(':') >= 0) { // an IPv6 literal: parsed, never looked up
            if (host.indexOf('%') >= 0) {
                return false; // a zone, which Go's ParseIP refuses
            }
            try {
                return java.net.InetAddress.getByName(host).isLoopbackAddress();
            } catch (java.net.UnknownHostException e) {
                return false;
            }
        }
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            // Decimal 0–255 without leading zeros, as Go's ParseIP requires.
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')
                    || !p.chars().allMatch(c -> c >= '0' && c <= '9') || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return parts[0].equals("127");
    }

    /**
     * http:// + the listen address: the default public URL, only ever used
     * for a loopback address (any other needs -public-url).
     */
    static String defaultPublicUrl(String host, int port) {
        return "http://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** A boolean as Go's strconv.ParseBool reads it. */
    private static boolean bool(String name, String value) {
        return switch (value) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            case "0", "f", "F", "false", "FALSE", "False" -> false;
            default -> throw new IllegalArgumentException("invalid boolean value " + value + " for -" + name);
        };
    }

    /** -clock-start: an RFC 3339 time, read as the campaigns file's start and end are. */
    private static ServerClock clockStart(String value) throws RefusedException {
        FileRules.Instant start = FileRules.parseRfc3339(value);
        if (start == null) {
            throw new RefusedException("invalid value " + value + " for -clock-start: must be an RFC 3339 time"
                    + " such as 2026-11-04T08:00:00Z");
        }
        return ServerClock.startingAt(start.seconds(), start.nanos());
    }

    /** -trusted-proxies, read as the Go server reads it. */
    private static Proxies proxies(String name, String value) {
        try {
            return Proxies.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid value " + value + " for -" + name + ": " + e.getMessage());
        }
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
