package recbid.baseline;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.charset.StandardCharsets;

/**
 * The endpoints of the public listener, transport-neutral: what a request
 * is answered, from what a front end read of it (method, raw path and
 * query, the few headers the contract reads, the peer's address, the
 * body), as a status, headers and body bytes. The Tomcat servlets
 * ({@link JsonServlet} and its subclasses) and the Netty handler
 * ({@link NettyHandler}) are thin adapters over it, so that both front ends
 * give every request the same answer, in the contract's order of checks.
 *
 * <p>A request is answered in two steps, so that a front end reads no body
 * it does not need: {@link #route} (or, behind Tomcat's servlet mapping,
 * {@link #recbid}, {@link #win} or {@link #notFound}) decides all that the
 * head decides (path, method, admission, content type, a declared length
 * over the limit) and answers, or asks for the body with a {@link NeedsBody};
 * the front end then reads at most {@link #MAX_BODY_BYTES} + 1 bytes and
 * calls {@link #finish} (or {@link #tooLarge} or {@link #badBody} when the
 * body is over the limit or cannot be read). Everything here is CPU-only
 * and in memory: it never blocks (a save that finds its store full while
 * another thread sweeps it is refused rather than waiting for the sweep),
 * so an event loop may call it.
 * Thread-safe.
 */
final class Api {
    static final String RECBID_PATH = "/dsp/recbid";
    static final String WIN_PATH = "/dsp/win";
    static final int MAX_BODY_BYTES = 16 << 10;
    private static final int MAX_QUERY_BYTES = MAX_BODY_BYTES;

    static final String JSON = "application/json";

    /** What a front end read of a request's head. Values are byte strings (one char per byte). */
    interface Head {
        String method();

        /** The request target's path, as sent (not decoded, not normalized), without the query. */
        String path();

        /** The raw query's bytes (empty when there is none). */
        byte[] query();

        /** The first value of a header, or null. Only Content-Type and Authorization are asked for. */
        String header(String name);

        /** Every line of X-Forwarded-For, in order; read only when the peer is a trusted proxy. */
        Iterable<String> forwardedFor();

        /** The connection's peer address as an IP literal (InetAddress.getHostAddress). */
        String remoteAddr();

        /** The declared Content-Length, -1 when there is none (a chunked body). */
        long contentLength();
    }

    /** The outcome of a request's head: an answer, or the body is needed to answer. */
    sealed interface Step permits Answer, NeedsBody {}

    /**
     * An answer: a status, the headers the contract names (pairs of name
     * and value, in order) and a JSON body, or no body (null).
     */
    static final class Answer implements Step {
        final int status;
        final String[] headers;
        final byte[] body;

        Answer(int status, byte[] body, String... headers) {
            this.status = status;
            this.body = body;
            this.headers = headers;
        }
    }

    /** A bid request whose head passed every check: answered by {@link #finish} with its body. */
    static final class NeedsBody implements Step {
        final Exchange exchange;
        final long arrivedNanos;
        final long nowMillis;
        /** The declared Content-Length, or -1. */
        final long declared;

        NeedsBody(Exchange exchange, long arrivedNanos, long nowMillis, long declared) {
            this.exchange = exchange;
            this.arrivedNanos = arrivedNanos;
            this.nowMillis = nowMillis;
            this.declared = declared;
        }
    }

    private final Responses responses;
    private final Engine engine;
    private final Catalog catalog;
    private final ServerClock clock;
    private final boolean trustRequestTs;
    private final Exchanges exchanges;
    private final Proxies trustedProxies;

    Api(Responses responses, Engine engine, Catalog catalog, ServerClock clock, boolean trustRequestTs,
            Exchanges exchanges, Proxies trustedProxies) {
        this.responses = responses;
        this.engine = engine;
        this.catalog = catalog;
        this.clock = clock;
        this.trustRequestTs = trustRequestTs;
        this.exchanges = exchanges;
        this.trustedProxies = trustedProxies;
    }

    /**
     * The router, on the raw path as Go's router reads it: BASE and
     * BASE/{exchange} of the bid and win paths, 404 not_found elsewhere.
     * (Behind Tomcat the servlet mapping routes instead, on the decoded,
     * normalized path, and each servlet checks the raw one.)
     */
    Step route(Head h) throws JsonProcessingException {
        String path = h.path();
        if (exchangeOf(path, RECBID_PATH) != null) {
            return recbid(h);
        }
        if (exchangeOf(path, WIN_PATH) != null) {
            return win(h);
        }
        return notFound();
    }

    /**
     * POST /dsp/recbid[/EXCHANGE]: the path's exchange (404), method (405),
     * the exchange's admission (403), content type (415), a declared length
     * over the limit (413, refused before reading); then the body is
     * needed. The request time is the server clock now (the request's ts
     * under -trust-request-ts).
     */
    Step recbid(Head h) throws JsonProcessingException {
        long arrived = System.nanoTime();
        long now = clock.millis();
        String id = exchangeOf(h.path(), RECBID_PATH);
        Exchange exchange = id == null ? null : exchanges.get(id);
        if (exchange == null) {
            return notFound();
        }
        if (!"POST".equals(h.method())) {
            return methodNotAllowed("POST");
        }
        if (!exchange.isOpen()) {
            Answer refused = admit(h, exchange);
            if (refused != null) {
                return refused;
            }
        }
        if (!MediaTypes.isForm(h.header("Content-Type"))) {
            return error(415, "unsupported_media_type", "", "Content-Type must be " + MediaTypes.FORM);
        }
        long declared = h.contentLength(); // -1 when chunked
        if (declared > MAX_BODY_BYTES) { // refused before reading
            return tooLarge();
        }
        return new NeedsBody(exchange, arrived, now, declared);
    }

    /**
     * The rest of a bid request: its body, body[0, length) (decoded in
     * place: the caller's bytes are overwritten), read up to one byte more
     * than allowed, which tells an oversized one (413); then the encoding
     * (400 bad_body), the keys, the decision, and a 200 bid or a 204 no bid.
     */
    Answer finish(NeedsBody call, byte[] body, int length) throws JsonProcessingException {
        if (length > MAX_BODY_BYTES) {
            return tooLarge();
        }
        BidRequest br;
        try {
            br = RequestReader.read(body, length, call.nowMillis, trustRequestTs);
        } catch (FormDecoder.MalformedException e) {
            return error(400, "bad_body", "", "body is not valid url-encoding");
        } catch (RequestReader.FieldException e) {
            return error(400, e.code, e.field, e.getMessage());
        }
        br.arrivedNanos = call.arrivedNanos;
        br.exchange = call.exchange;
        Engine.Decision d = engine.decide(catalog, br);
        if (!d.isBid()) {
            return new Answer(204, null, "X-Nobid-Reason", d.reason().header);
        }
        return new Answer(200, responses.bid(br, d));
    }

    /** A body over the limit: 413 body_too_large. */
    Answer tooLarge() throws JsonProcessingException {
        return error(413, "body_too_large", "", "body larger than " + MAX_BODY_BYTES + " bytes");
    }

    /** A body the client broke off or sent broken (fewer bytes than declared, a malformed chunk). */
    Answer badBody() throws JsonProcessingException {
        return error(400, "bad_body", "", "could not read the body");
    }

    /**
     * GET /dsp/win[/EXCHANGE]?bidid=…&amp;price=…, an exchange's win notice.
     * Checks run in this order: the path (/dsp/win/default is 404: default
     * lives on the bare path); method; a query that is not valid
     * url-encoding (400 bad_query); bidid missing, price missing (400
     * missing_field); an unknown or expired bid, a bidid that is not 32 hex
     * digits, or a bid made for another exchange than the path's (404
     * unknown_bid, as if it did not exist); a price that the bid's
     * exchange's rules refuse: malformed, zero, not signed with its keys
     * (400 invalid_field); a price above the bid's own (400 invalid_field);
     * then the first notice is recorded (204) and repeats answer 204 with
     * X-Win-Duplicate: 1. The bid comes before the price because its
     * exchange decides how the price is read. Win notices are not filtered
     * by source: the encrypted price is their guard. The body, if any, is
     * never read.
     */
    Answer win(Head h) throws JsonProcessingException {
        String exchange = exchangeOf(h.path(), WIN_PATH);
        if (exchange == null) {
            return notFound();
        }
        if (!"GET".equals(h.method())) {
            return methodNotAllowed("GET");
        }
        byte[] query = h.query();
        if (query.length > MAX_QUERY_BYTES) {
            return error(400, "bad_query", "", "query too long");
        }
        String[] found = new String[2]; // the first non-empty bidid and price
        try {
            FormDecoder.decode(query, query.length, (key, buf, from, to) -> {
                int slot = switch (key) {
                    case "bidid" -> 0;
                    case "price" -> 1;
                    default -> -1;
                };
                if (slot >= 0 && to > from && found[slot] == null) {
                    found[slot] = new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
                }
            });
        } catch (FormDecoder.MalformedException e) {
            return error(400, "bad_query", "", "query is not valid url-encoding");
        }
        if (found[0] == null) {
            return error(400, "missing_field", "bidid", "bidid is required");
        }
        if (found[1] == null) {
            return error(400, "missing_field", "price", "price is required");
        }
        BidStore.BidId id = BidStore.BidId.parse(found[0]);
        BidStore.BidRecord rec = id == null ? null : engine.peek(id);
        if (rec == null || !rec.exchange().id().equals(exchange)) {
            return unknownBid();
        }
        Pricing pricing = rec.exchange().pricing();
        long price = pricing.decode(found[1]);
        if (price == Micros.INVALID) {
            return error(400, "invalid_field", "price", pricing.priceMessage());
        }
        return switch (engine.win(id, price)) {
            case UNKNOWN_BID -> unknownBid(); // expired since the peek
            case PRICE_ABOVE_BID -> error(400, "invalid_field", "price", "price is above the bid's price");
            case DUPLICATE -> new Answer(204, null, "X-Win-Duplicate", "1");
            case RECORDED, TEST -> new Answer(204, null);
        };
    }

    /** Every other path: 404 not_found. */
    Answer notFound() throws JsonProcessingException {
        return error(404, "not_found", "", "no such endpoint");
    }

    /**
     * Checks that the exchange lets this client ask for bids: its address
     * (the connection's peer, or behind a trusted proxy the client its
     * X-Forwarded-For names) in allow, then its bearer token. A refusal is
     * answered 403 forbidden; null: admitted.
     */
    private Answer admit(Head h, Exchange exchange) throws JsonProcessingException {
        Netip.Addr peer = Netip.parseAddr(h.remoteAddr());
        Netip.Addr client = trustedProxies.client(peer, h.forwardedFor());
        Exchange.Refusal refusal = exchange.admit(client, h.header("Authorization"));
        if (refusal == Exchange.Refusal.ADMITTED) {
            return null;
        }
        String message = refusal == Exchange.Refusal.TOKEN
                ? "a bid request for exchange " + exchange.id() + " needs its bearer token (Authorization: Bearer …)"
                : "this source may not ask exchange " + exchange.id() + " for bids";
        return error(403, "forbidden", "", message);
    }

    private Answer methodNotAllowed(String allow) throws JsonProcessingException {
        return new Answer(405, responses.error("method_not_allowed", "", "method not allowed; use " + allow),
                "Allow", allow);
    }

    private Answer unknownBid() throws JsonProcessingException {
        return error(404, "unknown_bid", "bidid", "unknown or expired bid");
    }

    private Answer error(int status, String code, String field, String message) throws JsonProcessingException {
        return new Answer(status, responses.error(code, field, message));
    }

    /**
     * The exchange id a request's raw path names under a base path
     * (/dsp/recbid, /dsp/win), as the Go router reads its two routes BASE
     * and BASE/{exchange}: the bare path is exchange "default"; BASE/ID
     * names ID, one non-empty path segment taken as sent, except "default",
     * which lives on the bare path only. Null for any other path (404).
     */
    static String exchangeOf(String uri, String base) {
        if (!uri.startsWith(base)) {
            return null;
        }
        if (uri.length() == base.length()) {
            return Exchange.DEFAULT_ID;
        }
        if (uri.charAt(base.length()) != '/') {
            return null;
        }
        String id = uri.substring(base.length() + 1);
        if (id.isEmpty() || id.indexOf('/') >= 0 || id.equals(Exchange.DEFAULT_ID)) {
            return null;
        }
        return id;
    }
}
