package recbid.baseline;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.modeler.Registry;

/**
 * The Java baseline: POST /dsp/recbid and GET /dsp/win of docs/protocol.md
 * (the form protocol of the recbid contract, sections 1–5 and 7) on
 * embedded Tomcat, in the foreground.
 *
 * <pre>
 * java recbid.baseline.Main -addr HOST:PORT -campaigns FILE -seat SEAT -public-url URL
 *     [-exchanges FILE] [-trusted-proxies CIDRS]
 *     [-trust-request-ts] [-clock-start RFC3339] [-safety-margin 5ms] [-bid-ttl 10m]
 *     [-max-bids N] [-max-freq-counters N] [-max-day-counters N] [-max-threads 200]
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
 * <p>Tomcat settings, chosen so that Tomcat is neither handicapped nor given
 * anything the Go server does not have (README.md explains each):
 * <ul>
 * <li>NIO connector (Http11NioProtocol), the default and the one every
 *     Tomcat 10 deployment uses;
 * <li>maxThreads 200 (flag -max-threads or env TOMCAT_MAX_THREADS), at least
 *     the load's concurrency, all started up front (minSpareThreads =
 *     maxThreads) so no measurement pays for thread creation;
 * <li>maxKeepAliveRequests -1 and keepAliveTimeout 60 s: a keep-alive
 *     connection lives as long as Go's (IdleTimeout 60 s, no request cap);
 * <li>maxConnections 10000 and acceptCount 4096 (Go's listen backlog is the
 *     kernel's somaxconn, 4096);
 * <li>connectionTimeout 5 s (Go's read timeout), maxHttpHeaderSize 16 KiB
 *     (Go's -max-header-bytes);
 * <li>the characters Go accepts unescaped in a request target are accepted
 *     too (relaxedPathChars/relaxedQueryChars), else an unfilled
 *     ${AUCTION_PRICE} would be a Tomcat 400 instead of the contract's
 *     invalid_field; TRACE reaches the servlets (allowTrace) to be answered
 *     405/404 like any other method;
 * <li>no JMX (Registry.disableRegistry()), no access log, no JSP, no default
 *     servlet, no session cookies, no background processing, no error
 *     report pages.
 * </ul>
 * SIGTERM (or SIGINT) stops Tomcat, which finishes the requests in flight,
 * and exits 0 like the Go server.
 */
public final class Main {
    private Main() {}

    /** Tomcat logs warnings and errors only; the server's own lines go to stderr. */
    private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

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

        Path baseDir = Files.createTempDirectory("java-baseline-tomcat");
        Tomcat tomcat = newTomcat(o, baseDir);
        Context ctx = tomcat.addContext("", null);
        ctx.setCookies(false);
        Tomcat.addServlet(ctx, "recbid", new RecbidServlet(responses, engine, catalog, o.clock, o.trustRequestTs,
                exchanges, o.trustedProxies));
        ctx.addServletMapping(RecbidServlet.PATH, "recbid");
        ctx.addServletMapping(RecbidServlet.PATH + "/*", "recbid"); // /dsp/recbid/EXCHANGE
        Tomcat.addServlet(ctx, "win", new WinServlet(responses, engine));
        ctx.addServletMapping(WinServlet.PATH, "win");
        ctx.addServletMapping(WinServlet.PATH + "/*", "win"); // /dsp/win/EXCHANGE
        Tomcat.addServlet(ctx, "not-found", new NotFoundServlet(responses));
        ctx.addServletMapping("/", "not-found");

        try {
            tomcat.start();
        } catch (LifecycleException e) {
            System.err.println("java-baseline: cannot start Tomcat: " + e.getMessage());
            deleteTree(baseDir);
            System.exit(1);
        }
        Connector connector = tomcat.getConnector();
        if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() <= 0) {
            System.err.println("java-baseline: cannot listen on " + o.addr + " (see Tomcat's log above)");
            deleteTree(baseDir);
            System.exit(1);
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

        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(tomcat, baseDir), "shutdown"));
        System.err.println("java-baseline listening on " + o.host + ":" + connector.getLocalPort()
                + " (public-url " + o.publicUrl + ", seat " + o.seat + ", " + catalog.size() + " campaigns, "
                + describe(exchanges)
                + (o.trustedProxies.isEmpty() ? "" : ", trusted-proxies " + o.trustedProxies) + ", maxThreads "
                + o.maxThreads + ", max-bids " + caps.maxBids() + ", max-freq-counters " + caps.maxFreqCounters()
                + ", max-day-counters " + caps.maxDayCounters() + (o.trustRequestTs ? ", trust-request-ts" : "")
                + ", clock " + Instant.ofEpochMilli(o.clock.millis()) + ", " + Runtime.version() + ")");
        tomcat.getServer().await();
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

    private static Tomcat newTomcat(Options o, Path baseDir) throws IOException {
        Registry.disableRegistry(); // no JMX MBeans, before anything of Tomcat is created
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        tomcat.getEngine().setBackgroundProcessorDelay(-1); // nothing to reload, no sessions to expire

        Connector connector = new Connector(Http11NioProtocol.class.getName());
        Http11NioProtocol http = (Http11NioProtocol) connector.getProtocolHandler();
        if (!o.host.isEmpty()) {
            http.setAddress(InetAddress.getByName(o.host));
        }
        http.setPort(o.port);
        http.setMaxThreads(o.maxThreads);
        http.setMinSpareThreads(o.maxThreads);
        http.setMaxConnections(10_000);
        http.setAcceptCount(4096);
        http.setMaxKeepAliveRequests(-1);
        http.setKeepAliveTimeout(60_000);
        http.setConnectionTimeout(5_000);
        http.setMaxHttpHeaderSize(16 << 10);
        http.setRelaxedPathChars("\"<>[\\]^`{|}");
        http.setRelaxedQueryChars("\"<>[\\]^`{|}");
        connector.setAllowTrace(true);
        tomcat.setConnector(connector);

        ErrorReportValve errors = new ErrorReportValve(); // Tomcat's own errors (bad request line, …) without a report page
        errors.setShowReport(false);
        errors.setShowServerInfo(false);
        tomcat.getHost().getPipeline().addValve(errors);
        return tomcat;
    }

    /**
     * The shutdown hook: stop accepting, let the requests in flight finish,
     * then exit 0. The JVM would otherwise report a signal's death as 128+n
     * (143 for SIGTERM); the Go server exits 0 after a drain, and so does this.
     */
    private static void stop(Tomcat tomcat, Path baseDir) {
        System.err.println("java-baseline draining");
        int status = 0;
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            System.err.println("java-baseline: stop: " + e);
            status = 1;
        }
        deleteTree(baseDir);
        System.err.println("java-baseline stopped");
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }

    /** Removes Tomcat's scratch directory. */
    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is harmless
        }
    }
}
