package recbid.baseline;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
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
 * The Tomcat front end (-http tomcat, the default): embedded Tomcat 10.1,
 * three servlets over {@link Api}. Settings, chosen so that Tomcat is
 * neither handicapped nor given anything the Go server does not have
 * (README.md explains each):
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
 * Stopping stops Tomcat, which finishes the requests in flight.
 */
final class TomcatServer implements FrontEnd {
    private final Tomcat tomcat;
    private final Path baseDir;
    private final int port;
    private final int maxThreads;

    private TomcatServer(Tomcat tomcat, Path baseDir, int port, int maxThreads) {
        this.tomcat = tomcat;
        this.baseDir = baseDir;
        this.port = port;
        this.maxThreads = maxThreads;
    }

    static TomcatServer start(Options o, Api api) throws IOException, StartException {
        Path baseDir = Files.createTempDirectory("java-baseline-tomcat");
        Tomcat tomcat = newTomcat(o, baseDir);
        Context ctx = tomcat.addContext("", null);
        ctx.setCookies(false);
        Tomcat.addServlet(ctx, "recbid", new RecbidServlet(api));
        ctx.addServletMapping(RecbidServlet.PATH, "recbid");
        ctx.addServletMapping(RecbidServlet.PATH + "/*", "recbid"); // /dsp/recbid/EXCHANGE
        Tomcat.addServlet(ctx, "win", new WinServlet(api));
        ctx.addServletMapping(WinServlet.PATH, "win");
        ctx.addServletMapping(WinServlet.PATH + "/*", "win"); // /dsp/win/EXCHANGE
        Tomcat.addServlet(ctx, "not-found", new NotFoundServlet(api));
        ctx.addServletMapping("/", "not-found");

        try {
            tomcat.start();
        } catch (LifecycleException e) {
            deleteTree(baseDir);
            throw new StartException("cannot start Tomcat: " + e.getMessage());
        }
        Connector connector = tomcat.getConnector();
        if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() <= 0) {
            deleteTree(baseDir);
            throw new StartException("cannot listen on " + o.addr + " (see Tomcat's log above)");
        }
        return new TomcatServer(tomcat, baseDir, connector.getLocalPort(), o.maxThreads);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String describe() {
        return "maxThreads " + maxThreads;
    }

    @Override
    public void await() {
        tomcat.getServer().await();
    }

    @Override
    public void stop() throws LifecycleException {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            deleteTree(baseDir);
        }
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

    /** Removes Tomcat's scratch directory. */
    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is harmless
        }
    }
}
