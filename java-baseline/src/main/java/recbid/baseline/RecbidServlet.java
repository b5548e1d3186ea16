package recbid.baseline;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;

/**
 * POST /dsp/recbid[/EXCHANGE]: validation in the contract's order (the
 * path's exchange, method, the exchange's admission, content type, size,
 * encoding, keys), the decision, and a 200 bid or a 204 no bid. The bare
 * path belongs to exchange "default"; a path naming no exchange of the set
 * is 404. The request time is the server clock when the request arrives
 * (the request's ts under -trust-request-ts).
 */
final class RecbidServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    static final String PATH = "/dsp/recbid";
    static final int MAX_BODY_BYTES = 16 << 10;

    private final transient Engine engine;
    private final transient Catalog catalog;
    private final transient ServerClock clock;
    private final boolean trustRequestTs;
    private final transient Exchanges exchanges;
    private final transient Proxies trustedProxies;

    RecbidServlet(Responses responses, Engine engine, Catalog catalog, ServerClock clock, boolean trustRequestTs,
            Exchanges exchanges, Proxies trustedProxies) {
        super(responses);
        this.engine = engine;
        this.catalog = catalog;
        this.clock = clock;
        this.trustRequestTs = trustRequestTs;
        this.exchanges = exchanges;
        this.trustedProxies = trustedProxies;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long arrived = System.nanoTime();
        long now = clock.millis();
        String id = exchangeOf(req.getRequestURI(), PATH);
        Exchange exchange = id == null ? null : exchanges.get(id);
        if (exchange == null) {
            notFound(resp);
            return;
        }
        if (!"POST".equals(req.getMethod())) {
            methodNotAllowed(resp, "POST");
            return;
        }
        if (!exchange.isOpen() && !admit(req, resp, exchange)) {
            return;
        }
        if (!MediaTypes.isForm(req.getHeader("Content-Type"))) {
            error(resp, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", "",
                    "Content-Type must be " + MediaTypes.FORM);
            return;
        }
        long declared = req.getContentLengthLong(); // -1 when chunked
        if (declared > MAX_BODY_BYTES) { // refused before reading
            tooLarge(resp);
            return;
        }
        byte[] body;
        try (InputStream in = req.getInputStream()) {
            // A chunked body is read up to one byte more than allowed, which tells an oversized one.
            body = in.readNBytes(declared >= 0 ? (int) declared : MAX_BODY_BYTES + 1);
        } catch (IOException e) {
            body = null;
        }
        if (body == null || body.length < declared) {
            // The client went away or sent a broken body: answer what we can.
            // (When the read itself failed, Tomcat has already chosen its own
            // 400 page, and what is written here is dropped.)
            error(resp, HttpServletResponse.SC_BAD_REQUEST, "bad_body", "", "could not read the body");
            return;
        }
        if (body.length > MAX_BODY_BYTES) {
            tooLarge(resp);
            return;
        }
        BidRequest br;
        try {
            br = RequestReader.read(body, body.length, now, trustRequestTs);
        } catch (FormDecoder.MalformedException e) {
            error(resp, HttpServletResponse.SC_BAD_REQUEST, "bad_body", "", "body is not valid url-encoding");
            return;
        } catch (RequestReader.FieldException e) {
            error(resp, HttpServletResponse.SC_BAD_REQUEST, e.code, e.field, e.getMessage());
            return;
        }
        br.arrivedNanos = arrived;
        br.exchange = exchange;
        Engine.Decision d = engine.decide(catalog, br);
        if (!d.isBid()) {
            resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
            resp.setHeader("X-Nobid-Reason", d.reason().header);
            return;
        }
        writeJson(resp, HttpServletResponse.SC_OK, responses.bid(br, d));
    }

    /**
     * Checks that the exchange lets this client ask for bids: its address
     * (the connection's peer, or behind a trusted proxy the client its
     * X-Forwarded-For names) in allow, then its bearer token. A refusal is
     * answered 403 forbidden.
     */
    private boolean admit(HttpServletRequest req, HttpServletResponse resp, Exchange exchange) throws IOException {
        Netip.Addr peer = Netip.parseAddr(req.getRemoteAddr());
        Netip.Addr client = trustedProxies.client(peer, req.getHeaders("X-Forwarded-For"));
        Exchange.Refusal refusal = exchange.admit(client, req.getHeader("Authorization"));
        if (refusal == Exchange.Refusal.ADMITTED) {
            return true;
        }
        String message = refusal == Exchange.Refusal.TOKEN
                ? "a bid request for exchange " + exchange.id() + " needs its bearer token (Authorization: Bearer …)"
                : "this source may not ask exchange " + exchange.id() + " for bids";
        error(resp, HttpServletResponse.SC_FORBIDDEN, "forbidden", "", message);
        return false;
    }

    private void tooLarge(HttpServletResponse resp) throws IOException {
        error(resp, HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE, "body_too_large", "",
                "body larger than " + MAX_BODY_BYTES + " bytes");
    }
}
