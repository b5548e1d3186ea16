package recbid.baseline;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The Java baseline: POST /dsp/recbid and GET /dsp/win of docs/protocol.md
 * (the form protocol of the recbid contract, sections 1–5 and 7) on
 * embedded Tomcat or on Netty, in the foreground.
 *
 * <pre>
 * java recbid.baseline.Main -addr HOST:PORT -campaigns FILE -seat SEAT -public-url URL
 *     [-exchanges FILE] [-trusted-proxies CIDRS]
 *     [-trust-request-ts] [-clock-start RFC3339] [-safety-margin 5ms] [-bid-ttl 10m]
 *     [-max-bids N] [-max-freq-counters N] [-max-day-counters N]
 *     [-http tomcat|netty] [-max-threads 200] [-event-loops N]
 * </pre>
 *
 * <p>Exchanges: each exchange X of the -exchanges file has POST
 * /dsp/recbid/X and GET /dsp/win/X; the bare paths belong to the exchange
 * "default" (declared in the file, or without a file the implicit one:
 * open, clear prices). A bid request must come from the exchange's allow
 * list and carry its bearer token (403 forbidden otherwise, checked right
 * after the method); the client address is the connection's peer, or
 * behind a proxy of -trusted-proxies the client its X-Forwarded-For names.
 * A bid belongs to its exchange: its win notice is read by that exchange's
 * price rules (a decimal, or an HMAC-SHA1 encrypted price) and is an
 * unknown bid on any other exchange's path. Both files are read once, at
 * start; one with any problem makes the server refuse to start (exit
 * status 1), naming every problem.
 *
 * <p>-addr defaults to 127.0.0.1:9090. A listen address that is not
 * loopback (127.0.0.0/8, ::1, localhost; an empty host, 0.0.0.0 and :: are
 * every interface) needs -public-url, the URL exchanges reach the server
 * at: without it the server refuses to start (exit status 2). The request
 * time is the server clock at arrival; -trust-request-ts takes the
 * request's ts instead, for replays and tests. The server clock is the wall
 * clock, or with -clock-start one that starts at the given instant and runs
 * at real speed. The bid records and counters are bounded
 * ({@link StateCaps}: caps not given are derived from the heap); a bid that
 * would need room the state does not have is a no bid, reason capacity.
 *
 * <p>Two HTTP front ends serve the same {@link Api} (-http): embedded
 * Tomcat 10.1 ({@link TomcatServer}, the default, -max-threads) and Netty
 * 4.1 ({@link NettyServer}, -event-loops); both answer every request alike,
 * byte for byte, and print the same start-up line.
 *
 * <p>SIGTERM (or SIGINT) stops the front end, which finishes the requests in
 * flight, and exits 0 like the Go server.
 */
public final class Main {
    private Main() {}

    /** Tomcat and Netty log warnings and errors only; the server's own lines go to stderr. */
    private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");
    private static final Logger NETTY_LOG = Logger.getLogger("io.netty");

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (Options.HelpException e) {
            System.err.print(Options.USAGE);
            System.exit(0);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println("java-baseline: " + e.getMessage());
            System.err.print(Options.USAGE);
            System.exit(2);
            return;
        } catch (Options.RefusedException e) {
            System.err.println("java-baseline: " + e.getMessage());
            System.exit(2);
            return;
        }
        TOMCAT_LOG.setLevel(Level.WARNING);
        NETTY_LOG.setLevel(Level.WARNING);

        ObjectMapper mapper = Responses.newMapper();
        Exchanges exchanges = Exchanges.implicitDefault();
        if (o.exchanges != null) {
            try {
                exchanges = ExchangesFile.load(mapper.getFactory(), Path.of(o.exchanges));
            } catch (InvalidFileException e) {
                System.err.println(
                        "java-baseline: refusing to start: exchanges " + o.exchanges + ": " + e.getMessage());
                System.exit(1);
                return;
            } catch (IOException e) {
                System.err.println("java-baseline: refusing to start: read exchanges " + o.exchanges + ": " + e);
                System.exit(1);
                return;
            }
        }
        List<Campaign> campaigns;
        try {
            campaigns = CampaignsFile.load(mapper, Path.of(o.campaigns), Set.copyOf(exchanges.ids()));
        } catch (InvalidFileException e) {
            System.err.println("java-baseline: refusing to start: campaigns " + o.campaigns + ": " + e.getMessage());
            System.exit(1);
            return;
        } catch (IOException e) {
            System.err.println("java-baseline: refusing to start: read campaigns " + o.campaigns + ": " + e);
            System.exit(1);
            return;
        }
        Catalog catalog = new Catalog(campaigns);
        StateCaps caps = StateCaps.derive(StateCaps.stateHeapBytes(), o.maxBids, o.maxFreqCounters, o.maxDayCounters);
        Ledger ledger = new Ledger(o.clock, caps.maxDayCounters(), caps.maxFreqCounters());
        BidStore bids = new BidStore(o.bidTtlNanos, caps.maxBids());
        Engine engine = new Engine(o.safetyMarginNanos, ledger, bids);
        Responses responses = new Responses(mapper, o.seat, o.publicUrl);
        Api api = new Api(responses, engine, catalog, o.clock, o.trustRequestTs, exchanges, o.trustedProxies);

        FrontEnd server;
        try {
            server = o.http == Options.Http.NETTY ? NettyServer.start(o, api) : TomcatServer.start(o, api);
        } catch (FrontEnd.StartException e) {
            System.err.println("java-baseline: " + e.getMessage());
            System.exit(1);
            return;
        }

        // Expired bid records and counters are swept once a minute, as in the Go server
        // (bid records on System.nanoTime, counters on the server clock).
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sweeper");
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(() -> {
            bids.trim(System.nanoTime());
            ledger.sweep();
        }, 1, 1, TimeUnit.MINUTES);

        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server), "shutdown"));
        System.err.println("java-baseline listening on " + o.host + ":" + server.port()
                + " (public-url " + o.publicUrl + ", seat " + o.seat + ", " + catalog.size() + " campaigns, "
                + describe(exchanges)
                + (o.trustedProxies.isEmpty() ? "" : ", trusted-proxies " + o.trustedProxies) + ", "
                + server.describe() + ", max-bids " + caps.maxBids() + ", max-freq-counters " + caps.maxFreqCounters()
                + ", max-day-counters " + caps.maxDayCounters() + (o.trustRequestTs ? ", trust-request-ts" : "")
                + ", clock " + Instant.ofEpochMilli(o.clock.millis()) + ", " + Runtime.version() + ")");
        server.await();
    }

    /** The exchanges for the start-up line: "exchanges adx (…), ox (…)", or the implicit one. */
    private static String describe(Exchanges exchanges) {
        if (exchanges.isImplicit()) {
            return "exchange default (implicit, open, clear)";
        }
        List<String> each = new ArrayList<>();
        for (Exchange e : exchanges.all()) {
            each.add(e.describe());
        }
        return "exchanges " + String.join(", ", each);
    }

    /**
     * The shutdown hook: stop accepting, let the requests in flight finish,
     * then exit 0. The JVM would otherwise report a signal's death as 128+n
     * (143 for SIGTERM); the Go server exits 0 after a drain, and so does this.
     */
    private static void stop(FrontEnd server) {
        System.err.println("java-baseline draining");
        int status = 0;
        try {
            server.stop();
        } catch (Exception e) {
            System.err.println("java-baseline: stop: " + e);
            status = 1;
        }
        System.err.println("java-baseline stopped");
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }
}
