package recbid.baseline;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.math.BigDecimal;
import java.util.List;

/**
 * The JSON of the server: the one ObjectMapper (campaigns file and
 * answers), and the answers as records whose key order is the contract's.
 *
 * <p>Jackson's default escaping is already the contract's minimal one
 * (quote and backslash escaped, \b \f \n \r \t, the other controls as a
 * backslash-u escape, everything else written as it is in UTF-8) except that
 * it writes the hex digits of those escapes in upper case;
 * WRITE_HEX_UPPER_CASE (jackson-core 2.14+) turns that off. Prices are
 * BigDecimals with trailing zeros stripped, written plain: 2.5, 0.85, 3.
 */
final class Responses {
    private final ObjectWriter bidWriter;
    private final ObjectWriter errorWriter;
    private final String seat;
    private final String publicUrl;

    Responses(ObjectMapper mapper, String seat, String publicUrl) {
        this.bidWriter = mapper.writerFor(BidResponse.class);
        this.errorWriter = mapper.writerFor(ErrorBody.class);
        this.seat = seat;
        this.publicUrl = publicUrl;
    }

    /** The configured mapper: strict reading of the campaigns file, the contract's writing of answers. */
    static ObjectMapper newMapper() {
        JsonMapper mapper = JsonMapper.builder()
                .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
                .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
                // The campaigns file: keys match in any case and unknown keys are
                // ignored, as with Go's encoding/json; a value of the wrong JSON
                // type is an error, never coerced.
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    @JsonPropertyOrder({"id", "bidid", "cur", "seatbid"})
    record BidResponse(String id, String bidid, String cur, List<SeatBid> seatbid) {}

    @JsonPropertyOrder({"seat", "bid"})
    record SeatBid(String seat, List<Bid> bid) {}

    @JsonPropertyOrder({"id", "impid", "price", "adid", "cid", "crid", "adomain", "cat", "w", "h", "nurl", "adm"})
    record Bid(String id, String impid, BigDecimal price, String adid, String cid, String crid,
            List<String> adomain, List<String> cat, int w, int h, String nurl, String adm) {}

    @JsonPropertyOrder({"error", "field", "message"})
    record ErrorBody(String error, String field, String message) {}

    /**
     * The bid answer of the contract, with the nurl of the exchange the bid
     * was made for: PUBLIC-URL/dsp/win[/ID]?bidid=B&amp;price=MACRO.
     */
    byte[] bid(BidRequest req, Engine.Decision d) throws JsonProcessingException {
        String bidId = d.bidId().toHex();
        Campaign c = d.campaign();
        Campaign.Creative cr = d.creative();
        Bid bid = new Bid(bidId, req.impId, c.price(), cr.id(), c.id(), cr.id(), c.adomain(), c.cat(), cr.w(), cr.h(),
                publicUrl + req.exchange.winPath() + "?bidid=" + bidId + "&price=" + req.exchange.priceMacro(),
                cr.adm());
        return bidWriter.writeValueAsBytes(
                new BidResponse(req.id, bidId, "USD", List.of(new SeatBid(seat, List.of(bid)))));
    }

    /** {"error":code,"field":field,"message":message} */
    byte[] error(String code, String field, String message) throws JsonProcessingException {
        return errorWriter.writeValueAsBytes(new ErrorBody(code, field, message));
    }
}
