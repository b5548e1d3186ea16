package recbid.baseline;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads and validates an exchanges file (the contract's section 7, the Go
 * server's api/exchange/file.go): the same rules, limits and defaults, and
 * the same problem lines, every one named, the file refused whole.
 *
 * <pre>
 * {"exchanges": [
 *   {"id": "adx", "allow": ["203.0.113.0/24"], "token": "…",
 *    "price": {"encoding": "hmac-sha1", "e_key": "…", "i_key": "…", "unit": "cpm_micros"}},
 *   {"id": "ox", "price": {"encoding": "clear"}, "price_macro": "${AUCTION_PRICE}"}
 * ]}
 * </pre>
 *
 * <p>The JSON is read the way Go's encoding/json reads it into the Go
 * server's types: at the top, keys exactly as written ("exchanges"; any
 * other is an unknown key); in an exchange, keys in any case, an unknown
 * one refusing the exchange (json: unknown field "…"), a value of the wrong
 * JSON type named with Go's words, null leaving a string as it was and
 * unsetting an optional value, the last of repeated keys counting. Only a
 * file that is not JSON at all is worded by Jackson.
 */
final class ExchangesFile {
    private ExchangesFile() {}

    // Limits of an exchanges file, as in the Go server.
    static final int MAX_FILE_BYTES = 1 << 20;
    private static final int MAX_EXCHANGES = 1000;
    private static final int MAX_ALLOW = 1000;
    private static final int MIN_TOKEN_BYTES = 16;
    private static final int MAX_TOKEN_BYTES = 256;
    private static final int MAX_MACRO_BYTES = 64;

    private static final String UNIT_CPM_MICROS = "cpm_micros";
    private static final String UNIT_CPI_MICROS = "cpi_micros";

    /** Reads and validates the file at path. */
    static Exchanges load(JsonFactory json, Path path) throws IOException, InvalidFileException {
        byte[] data;
        try (InputStream in = Files.newInputStream(path)) {
            data = in.readNBytes(MAX_FILE_BYTES + 1);
        }
        if (data.length > MAX_FILE_BYTES) {
            throw new InvalidFileException(List.of("file is larger than " + MAX_FILE_BYTES + " bytes"));
        }
        return parse(json, data);
    }

    /** Validates the JSON text of an exchanges file. */
    static Exchanges parse(JsonFactory json, byte[] data) throws InvalidFileException {
        String notAFile = checkTopLevel(json, data);
        if (notAFile != null) {
            throw new InvalidFileException(List.of("not an exchanges file: " + notAFile));
        }
        Set<String> unknownKeys = new LinkedHashSet<>();
        ListValue list = null; // the last "exchanges"; null: none
        try (JsonParser p = json.createParser(data)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    if (name.equals("exchanges")) {
                        list = readList(p);
                    } else {
                        unknownKeys.add(name);
                        p.skipChildren();
                    }
                }
            } // else null: no keys at all
        } catch (IOException e) {
            throw new IllegalStateException("exchanges file changed between two readings of the same bytes", e);
        }

        List<String> v = new ArrayList<>();
        for (String k : unknownKeys) {
            v.add("unknown key " + Ascii.quote(k));
        }
        List<FileExchange> raws = List.of();
        if (list == null || list.isNull) {
            v.add("no \"exchanges\" list");
        } else if (list.notAList != null) {
            v.add("\"exchanges\" must be a list: json: cannot unmarshal " + list.notAList
                    + " into Go value of type []json.RawMessage");
        } else {
            raws = list.elements;
        }
        if (list != null && raws.isEmpty() && v.isEmpty()) {
            v.add("at least one exchange is required");
        } else if (raws.size() > MAX_EXCHANGES) {
            v.add("at most " + MAX_EXCHANGES + " exchanges");
            raws = raws.subList(0, MAX_EXCHANGES);
        }
        List<Exchange> exchanges = new ArrayList<>(raws.size());
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < raws.size(); i++) {
            FileExchange fe = raws.get(i);
            List<String> errs = new ArrayList<>();
            Exchange e = null;
            String name = "#" + i;
            if (fe.decodeError != null) {
                errs.add(fe.decodeError);
            } else {
                e = validate(fe, errs);
                if (validId(fe.id)) {
                    name = fe.id;
                }
            }
            for (String problem : errs) {
                v.add("exchange " + name + ": " + problem);
            }
            if (e == null) {
                continue;
            }
            if (!ids.add(e.id())) {
                v.add("exchange " + name + ": id: duplicate");
                continue;
            }
            exchanges.add(e);
        }
        if (!v.isEmpty()) {
            throw new InvalidFileException(v);
        }
        return new Exchanges(exchanges, false);
    }

    /**
     * The problem with the file as a whole, or null: not JSON (Jackson's
     * words), a top level that is not an object (or null, read as no keys),
     * or text after the top-level value. As Go's json.Decoder.More reads
     * it, a closing bracket after the value is not "text".
     */
    private static String checkTopLevel(JsonFactory json, byte[] data) {
        long end;
        try (JsonParser p = json.createParser(data)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return "EOF";
            }
            p.skipChildren();
            if (t != JsonToken.START_OBJECT && t != JsonToken.VALUE_NULL) {
                return "json: cannot unmarshal " + kind(t) + " into Go value of type map[string]json.RawMessage";
            }
            end = p.getCurrentLocation().getByteOffset();
        } catch (JsonProcessingException e) {
            String msg = e.getOriginalMessage();
            int cut = msg.indexOf(" (start marker at");
            msg = cut >= 0 ? msg.substring(0, cut) : msg;
            cut = msg.indexOf('\n');
            msg = cut >= 0 ? msg.substring(0, cut) : msg;
            return msg + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
        } catch (IOException e) {
            return e.toString();
        }
        for (int i = (int) end; i < data.length; i++) {
            byte c = data[i];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                continue;
            }
            return c == ']' || c == '}' ? null : "text after the JSON value";
        }
        return null;
    }

    /** Go's name of a JSON value's kind in its unmarshal errors. */
    private static String kind(JsonToken t) {
        return switch (t) {
            case START_OBJECT -> "object";
            case START_ARRAY -> "array";
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
            case VALUE_TRUE, VALUE_FALSE -> "bool";
            default -> "null";
        };
    }

    // ---- the file as JSON spells it --------------------------------------

    /** The value of "exchanges": null, not a list (its kind), or the list's elements. */
    private static final class ListValue {
        boolean isNull;
        String notAList;
        final List<FileExchange> elements = new ArrayList<>();
    }

    /** An exchange as the file spells it; decodeError is the first decoding error, which refuses it. */
    private static final class FileExchange {
        String decodeError;
        String id = "";
        List<String> allow; // null: absent
        String token; // null: absent
        FilePrice price; // null: absent
        String priceMacro; // null: absent

        /** Keeps the first error, as Go's decoder does, and goes on reading. */
        void save(String err) {
            if (decodeError == null) {
                decodeError = err;
            }
        }

        void typeError(JsonParser p, String field, String type) throws IOException {
            save("json: cannot unmarshal " + kind(p.currentToken()) + " into Go struct field " + field + " of type "
                    + type);
            p.skipChildren();
        }
    }

    private static final class FilePrice {
        String encoding = "";
        String eKey; // null: absent
        String iKey;
        String unit;
    }

    private static ListValue readList(JsonParser p) throws IOException {
        ListValue lv = new ListValue();
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            lv.isNull = true;
            return lv;
        }
        if (t != JsonToken.START_ARRAY) {
            lv.notAList = kind(t);
            p.skipChildren();
            return lv;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            lv.elements.add(readExchange(p));
        }
        return lv;
    }

    private static FileExchange readExchange(JsonParser p) throws IOException {
        FileExchange fe = new FileExchange();
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return fe; // every field absent
        }
        if (t != JsonToken.START_OBJECT) {
            fe.save("json: cannot unmarshal " + kind(t) + " into Go value of type exchange.fileExchange");
            p.skipChildren();
            return fe;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            t = p.nextToken();
            switch (name.toLowerCase(Locale.ROOT)) { // keys in any case, as Go matches them
                case "id" -> {
                    if (t == JsonToken.VALUE_STRING) {
                        fe.id = p.getText();
                    } else if (t != JsonToken.VALUE_NULL) { // null leaves a string as it was
                        fe.typeError(p, "fileExchange.id", "string");
                    }
                }
                case "allow" -> {
                    if (t == JsonToken.VALUE_NULL) {
                        fe.allow = null;
                    } else if (t == JsonToken.START_ARRAY) {
                        // As Go decodes into the slice it has: a null entry keeps what a repeated "allow" put there.
                        List<String> before = fe.allow == null ? List.of() : fe.allow;
                        List<String> allow = new ArrayList<>();
                        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                            if (t == JsonToken.VALUE_STRING) {
                                allow.add(p.getText());
                                continue;
                            }
                            allow.add(allow.size() < before.size() ? before.get(allow.size()) : "");
                            if (t != JsonToken.VALUE_NULL) {
                                fe.typeError(p, "fileExchange.allow", "string");
                            }
                        }
                        fe.allow = allow;
                    } else {
                        fe.typeError(p, "fileExchange.allow", "[]string");
                    }
                }
                case "token" -> fe.token = optionalString(p, fe, "fileExchange.token", fe.token);
                case "price_macro" -> fe.priceMacro = optionalString(p, fe, "fileExchange.price_macro", fe.priceMacro);
                case "price" -> {
                    if (t == JsonToken.VALUE_NULL) {
                        fe.price = null;
                    } else if (t == JsonToken.START_OBJECT) {
                        if (fe.price == null) {
                            fe.price = new FilePrice(); // a repeated "price" is read into the same one, as in Go
                        }
                        readPrice(p, fe, fe.price);
                    } else {
                        fe.typeError(p, "fileExchange.price", "exchange.filePrice");
                    }
                }
                default -> {
                    fe.save("json: unknown field " + Ascii.quote(name));
                    p.skipChildren();
                }
            }
        }
        return fe;
    }

    private static void readPrice(JsonParser p, FileExchange fe, FilePrice fp) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            switch (name.toLowerCase(Locale.ROOT)) {
                case "encoding" -> {
                    if (t == JsonToken.VALUE_STRING) {
                        fp.encoding = p.getText();
                    } else if (t != JsonToken.VALUE_NULL) {
                        fe.typeError(p, "filePrice.price.encoding", "string");
                    }
                }
                case "e_key" -> fp.eKey = optionalString(p, fe, "filePrice.price.e_key", fp.eKey);
                case "i_key" -> fp.iKey = optionalString(p, fe, "filePrice.price.i_key", fp.iKey);
                case "unit" -> fp.unit = optionalString(p, fe, "filePrice.price.unit", fp.unit);
                default -> {
                    fe.save("json: unknown field " + Ascii.quote(name));
                    p.skipChildren();
                }
            }
        }
    }

    /** An optional string (Go's *string): null unsets it; a value of another type is an error and changes nothing. */
    private static String optionalString(JsonParser p, FileExchange fe, String field, String current)
            throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        fe.typeError(p, field, "string");
        return current;
    }

    // ---- validation ----------------------------------------------------

    /** Checks every rule of one exchange; returns it, or null with the problems added as "field: message". */
    private static Exchange validate(FileExchange fe, List<String> v) {
        if (!validId(fe.id)) {
            v.add("id: must be 1–32 of a-z, 0-9, _ and -");
        }
        List<Netip.Prefix> allow = null;
        if (fe.allow != null) {
            if (fe.allow.isEmpty()) {
                v.add("allow: at least one CIDR (leave allow out to admit any source)");
            } else if (fe.allow.size() > MAX_ALLOW) {
                v.add("allow: at most " + MAX_ALLOW + " entries");
            }
            allow = new ArrayList<>(fe.allow.size());
            for (int i = 0; i < fe.allow.size(); i++) {
                try {
                    allow.add(Netip.cidr(fe.allow.get(i)));
                } catch (IllegalArgumentException e) {
                    v.add("allow[" + i + "]: " + e.getMessage());
                }
            }
        }
        if (fe.token != null) {
            String t = fe.token;
            int n = Ascii.utf8Length(t);
            if (n < MIN_TOKEN_BYTES || n > MAX_TOKEN_BYTES || !isTokenText(t)) {
                v.add("token: must be " + MIN_TOKEN_BYTES + "–" + MAX_TOKEN_BYTES
                        + " printable ASCII characters without spaces");
            }
        }
        String macro = Exchange.DEFAULT_PRICE_MACRO;
        if (fe.priceMacro != null) {
            macro = fe.priceMacro;
            if (macro.isEmpty() || Ascii.utf8Length(macro) > MAX_MACRO_BYTES || !isTokenText(macro)
                    || macro.chars().anyMatch(c -> c == '"' || c == '\\' || c == '&' || c == '#')) {
                v.add("price_macro: must be 1–" + MAX_MACRO_BYTES
                        + " printable ASCII characters without spaces, '\"', '\\', '&' or '#'");
            }
        }
        Pricing pricing = pricing(fe.price, v);
        if (!v.isEmpty()) {
            return null;
        }
        return new Exchange(fe.id, allow, fe.token, pricing, macro);
    }

    private static Pricing pricing(FilePrice fp, List<String> v) {
        if (fp == null) {
            v.add("price: required: {\"encoding\":\"clear\"} for decimal prices, or the hmac-sha1 keys");
            return null;
        }
        switch (fp.encoding) {
            case "clear":
                if (fp.eKey != null || fp.iKey != null || fp.unit != null) {
                    v.add("price: e_key, i_key and unit are only for \"hmac-sha1\"");
                }
                return Pricing.clear();
            case "hmac-sha1":
                byte[] e = key("price.e_key", fp.eKey, v);
                byte[] i = key("price.i_key", fp.iKey, v);
                boolean cpi = false;
                if (fp.unit == null) {
                    v.add("price.unit: required: \"cpm_micros\" or \"cpi_micros\"");
                } else if (fp.unit.equals(UNIT_CPI_MICROS)) {
                    cpi = true;
                } else if (!fp.unit.equals(UNIT_CPM_MICROS)) {
                    v.add("price.unit: must be \"cpm_micros\" or \"cpi_micros\"");
                }
                return e == null || i == null ? null : Pricing.encrypted(e, i, cpi);
            case "":
                v.add("price.encoding: required: \"clear\" or \"hmac-sha1\"");
                return null;
            default:
                v.add("price.encoding: must be \"clear\" or \"hmac-sha1\"");
                return null;
        }
    }

    /** A 32-byte key in web-safe base64, padded or not (never its ASCII). */
    private static byte[] key(String field, String s, List<String> v) {
        if (s == null || s.isEmpty()) {
            v.add(field + ": required");
            return null;
        }
        byte[] k = Pricing.decodeBase64(s, Pricing.KEY_BYTES);
        if (k == null) {
            v.add(field + ": must be " + Pricing.KEY_BYTES + " bytes in web-safe base64");
        }
        return k;
    }

    /** 1–32 of a-z, 0-9, '_' and '-'. */
    static boolean validId(String id) {
        if (id == null || id.isEmpty() || id.length() > 32) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** Printable ASCII without spaces. */
    private static boolean isTokenText(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c > '~') {
                return false;
            }
        }
        return true;
    }
}
