package recbid.baseline;

/**
 * An HTTP front end over {@link Api}: embedded Tomcat ({@link TomcatServer},
 * the default) or Netty ({@link NettyServer}), chosen with -http.
 */
interface FrontEnd {
    /** The port it listens on. */
    int port();

    /** What the start-up line says of it: "maxThreads 200", "netty … nio, event-loops 2". */
    String describe();

    /** Blocks while it serves. */
    void await() throws InterruptedException;

    /**
     * Stops gracefully: no new connection is accepted, the requests in
     * flight are answered, then the connections are closed.
     */
    void stop() throws Exception;

    /** It could not start: the message says why (exit status 1). */
    final class StartException extends Exception {
        private static final long serialVersionUID = 1L;

        StartException(String message) {
            super(message, null, false, false);
        }
    }
}
