package recbid.baseline;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * GET /dsp/win[/EXCHANGE]?bidid=…&amp;price=…, an exchange's win notice.
 * Checks run in this order: the path (/dsp/win/default is 404: default
 * lives on the bare path); method; a query that is not valid url-encoding
 * (400 bad_query); bidid missing, price missing (400 missing_field); an
 * unknown or expired bid, a bidid that is not 32 hex digits, or a bid made
 * for another exchange than the path's (404 unknown_bid, as if it did not
 * exist); a price that the bid's exchange's rules refuse: malformed, zero,
 * not signed with its keys (400 invalid_field); a price above the bid's
 * own (400 invalid_field); then the first notice is recorded (204) and
 * repeats answer 204 with X-Win-Duplicate: 1. The bid comes before the
 * price because its exchange decides how the price is read. Win notices are
 * not filtered by source: the encrypted price is their guard.
 */
final class WinServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    static final String PATH = "/dsp/win";
    private static final int MAX_QUERY_BYTES = RecbidServlet.MAX_BODY_BYTES;

    private final transient Engine engine;

    WinServlet(Responses responses, Engine engine) {
        super(responses);
        this.engine = engine;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String exchange = exchangeOf(req.getRequestURI(), PATH);
        if (exchange == null) {
            notFound(resp);
            return;
        }
        if (!"GET".equals(req.getMethod())) {
            methodNotAllowed(resp, "GET");
            return;
        }
        String raw = req.getQueryString();
        byte[] query = raw == null ? new byte[0] : raw.getBytes(StandardCharsets.UTF_8);
        if (query.length > MAX_QUERY_BYTES) {
            error(resp, HttpServletResponse.SC_BAD_REQUEST, "bad_query", "", "query too long");
            return;
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
            error(resp, HttpServletResponse.SC_BAD_REQUEST, "bad_query", "", "query is not valid url-encoding");
            return;
        }
        if (found[0] == null) {
            error(resp, HttpServletResponse.SC_BAD_REQUEST, "missing_field", "bidid", "bidid is required");
            return;
        }
        if (found[1] == null) {
            error(resp, HttpServletResponse.SC_BAD_REQUEST, "missing_field", "price", "price is required");
            return;
        }
        BidStore.BidId id = BidStore.BidId.parse(found[0]);
        BidStore.BidRecord rec = id == null ? null : engine.peek(id);
        if (rec == null || !rec.exchange().id().equals(exchange)) {
            unknownBid(resp);
            return;
        }
        Pricing pricing = rec.exchange().pricing();
        long price = pricing.decode(found[1]);
        if (price == Micros.INVALID) {
            error(resp, HttpServletResponse.SC_BAD_REQUEST, "invalid_field", "price", pricing.priceMessage());
            return;
        }
        switch (engine.win(id, price)) {
            case UNKNOWN_BID -> unknownBid(resp); // expired since the peek
            case PRICE_ABOVE_BID -> error(resp, HttpServletResponse.SC_BAD_REQUEST, "invalid_field", "price",
                    "price is above the bid's price");
            case DUPLICATE -> {
                resp.setHeader("X-Win-Duplicate", "1");
                resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
            }
            case RECORDED, TEST -> resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
        }
    }

    private void unknownBid(HttpServletResponse resp) throws IOException {
        error(resp, HttpServletResponse.SC_NOT_FOUND, "unknown_bid", "bidid", "unknown or expired bid");
    }
}
