package recbid.baseline;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Reads and validates a campaigns file (docs/protocol.md section 2). A file
 * with any error is rejected whole, and the error names every problem, one
 * per line, as "campaign ID: field: message".
 */
final class CampaignsFile {
    private CampaignsFile() {}

    // Limits of the file beyond those the contract fixes, as in the Go server.
    private static final long MAX_FILE_BYTES = 1L << 30;
    private static final int MAX_CREATIVES = 1000;
    private static final int MAX_LIST_LEN = 10_000;
    private static final int MAX_LIST_STRING = 256;
    // Contract version 3: deals and the texts and numbers of video and native creatives.
    private static final int MAX_DEALS = 256;
    private static final int MAX_TITLE = 140;
    private static final int MAX_BODY = 500;
    private static final int MAX_SPONSORED = 64;
    private static final int MAX_CTA = 32;
    private static final int MAX_DURATION_S = 3600;
    private static final int MAX_BITRATE_KBPS = 100_000;
    private static final List<String> VAST_VERSIONS = List.of("2.0", "3.0", "4.0", "4.1", "4.2");

    /**
     * Reads, validates and returns the campaigns of the file at path, whose
     * targeting.exchanges may name the given exchange ids.
     */
    static List<Campaign> load(ObjectMapper mapper, Path path, Set<String> exchanges)
            throws IOException, InvalidFileException {
        if (Files.size(path) > MAX_FILE_BYTES) {
            throw new InvalidFileException(List.of("file is larger than " + MAX_FILE_BYTES + " bytes"));
        }
        Checker ch = new Checker(exchanges);
        ObjectReader reader = mapper.readerFor(FileCampaign.class);
        try (JsonParser p = mapper.createParser(path.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidFileException(List.of("not a campaigns file: the top level is not a JSON object"));
            }
            boolean haveList = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (!name.equalsIgnoreCase("campaigns")) { // keys match in any case, as in Go
                    p.skipChildren();
                    continue;
                }
                ch = new Checker(exchanges); // the last "campaigns" counts
                haveList = false;
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                if (t != JsonToken.START_ARRAY) {
                    throw new InvalidFileException(List.of("not a campaigns file: \"campaigns\" is not a list"));
                }
                haveList = true;
                readCampaigns(p, reader, ch);
            }
            if (p.nextToken() != null) {
                throw new InvalidFileException(List.of("not a campaigns file: data after the top-level object"));
            }
            if (!haveList) {
                throw new InvalidFileException(List.of("no \"campaigns\" list"));
            }
        } catch (JsonProcessingException e) {
            throw new InvalidFileException(List.of("not a campaigns file: " + e.getOriginalMessage()
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr()));
        }
        if (!ch.problems.isEmpty()) {
            throw new InvalidFileException(ch.problems);
        }
        return ch.campaigns;
    }

    /**
     * Binds the campaigns of the list one by one, so that a campaign that
     * cannot be bound (a string where a list belongs, …) is named and the
     * others are still checked.
     */
    private static void readCampaigns(JsonParser p, ObjectReader reader, Checker ch) throws IOException {
        JsonStreamContext list = p.getParsingContext();
        for (int i = 0; ; i++) {
            JsonToken t = p.nextToken();
            if (t == JsonToken.END_ARRAY) {
                return;
            }
            if (t != JsonToken.START_OBJECT) {
                ch.problems.add("campaign #" + i + ": not an object");
                p.skipChildren();
                continue;
            }
            try {
                ch.check(i, reader.readValue(p));
            } catch (JsonMappingException e) {
                ch.problems.add("campaign #" + i + ": " + describe(e));
                while (p.getParsingContext() != list) { // skip the rest of this campaign
                    if (p.nextToken() == null) {
                        throw e;
                    }
                }
            }
        }
    }

    private static String describe(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                if (path.length() > 0) {
                    path.append('.');
                }
                path.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                path.append('[').append(r.getIndex()).append(']');
            }
        }
        String msg = e.getOriginalMessage();
        int cut = msg.indexOf('\n');
        if (cut >= 0) {
            msg = msg.substring(0, cut);
        }
        cut = msg.indexOf(" (but ");
        if (cut >= 0) {
            msg = msg.substring(0, cut); // Jackson's hint about coercion settings
        }
        return path.length() > 0 ? path + ": " + msg : msg;
    }

    // ---- the file as JSON spells it --------------------------------------

    static final class FileCampaign {
        public String id;
        public String advertiser;
        public List<String> adomain;
        public List<String> cat;
        public String status;
        @JsonProperty("bid_cpm")
        public RawNumber bidCpm;
        @JsonProperty("daily_budget")
        public RawNumber dailyBudget;
        public String start;
        public String end;
        @JsonProperty("freq_cap")
        public FileFreqCap freqCap;
        public String pacing;
        public FileTargeting targeting;
        public List<FileCreative> creatives;
        public List<String> deals;
        @JsonProperty("open_auction")
        public Boolean openAuction; // null: absent or null, the default true
    }

    static final class FileFreqCap {
        public RawNumber impressions;
        @JsonProperty("period_s")
        public RawNumber periodS;
    }

    static final class FileTargeting {
        public List<String> countries;
        public List<String> regions;
        public List<String> cities;
        public List<String> os;
        public List<RawNumber> devtypes;
        public List<String> sites;
        public List<String> bundles;
        @JsonProperty("exclude_sites")
        public List<String> excludeSites;
        @JsonProperty("exclude_bundles")
        public List<String> excludeBundles;
        public List<String> cats;
        public List<RawNumber> hours;
        public List<String> exchanges;
    }

    /**
     * A creative of any type. A string field that is null was absent (or
     * null), as Go's *string; a RawNumber that is null was absent (or null).
     */
    static final class FileCreative {
        public String id;
        public String type; // banner (null or ""), video or native
        public RawNumber w;
        public RawNumber h;
        public boolean secure;
        @JsonProperty("image_url")
        public String imageUrl;
        @JsonProperty("click_url")
        public String clickUrl;

        // video
        @JsonProperty("duration_s")
        public RawNumber durationS;
        public String mime;
        @JsonProperty("media_url")
        public String mediaUrl;
        @JsonProperty("bitrate_kbps")
        public RawNumber bitrateKbps;
        @JsonProperty("vast_version")
        public String vastVersion;

        // native
        public String title;
        public String body;
        public String sponsored;
        public String cta;
        @JsonProperty("image_w")
        public RawNumber imageW;
        @JsonProperty("image_h")
        public RawNumber imageH;
        @JsonProperty("icon_url")
        public String iconUrl;
        @JsonProperty("icon_w")
        public RawNumber iconW;
        @JsonProperty("icon_h")
        public RawNumber iconH;

        /** The video fields this creative has, in the Go server's order (for problems on another type). */
        List<String> videoFields() {
            List<String> out = new ArrayList<>();
            addIf(out, "duration_s", durationS != null);
            addIf(out, "mime", mime != null);
            addIf(out, "media_url", mediaUrl != null);
            addIf(out, "bitrate_kbps", bitrateKbps != null);
            addIf(out, "vast_version", vastVersion != null);
            return out;
        }

        /** The native fields this creative has, in the Go server's order. */
        List<String> nativeFields() {
            List<String> out = new ArrayList<>();
            addIf(out, "title", title != null);
            addIf(out, "body", body != null);
            addIf(out, "sponsored", sponsored != null);
            addIf(out, "cta", cta != null);
            addIf(out, "image_w", imageW != null);
            addIf(out, "image_h", imageH != null);
            addIf(out, "icon_url", iconUrl != null);
            addIf(out, "icon_w", iconW != null);
            addIf(out, "icon_h", iconH != null);
            return out;
        }

        private static void addIf(List<String> out, String name, boolean set) {
            if (set) {
                out.add(name);
            }
        }
    }

    /** The characters of a media type's name (RFC 6838 section 4.2), as the Go server reads them. */
    static boolean isMediaToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Ascii.isAlnum(c) && "!#$&-^_.+".indexOf(c) < 0) {
                return false;
            }
        }
        return s.length() <= 127;
    }

    /**
     * A JSON value kept as its literal text, so that money and integers are
     * checked digit by digit (no binary floating point, no exponent) and a
     * string where a number belongs is named as such. A JSON null binds to
     * a Java null.
     */
    @JsonDeserialize(using = RawNumber.Deserializer.class)
    record RawNumber(String text, boolean isNumber) {
        static final class Deserializer extends StdDeserializer<RawNumber> {
            Deserializer() {
                super(RawNumber.class);
            }

            @Override
            public RawNumber deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
                JsonToken t = p.currentToken();
                if (t.isNumeric()) {
                    return new RawNumber(p.getText(), true);
                }
                if (t.isStructStart()) {
                    p.skipChildren();
                    return new RawNumber(t == JsonToken.START_OBJECT ? "{…}" : "[…]", false);
                }
                if (t == JsonToken.VALUE_STRING) {
                    return new RawNumber(Ascii.quote(p.getText()), false);
                }
                return new RawNumber(p.getText(), false);
            }
        }
    }

    // ---- validation ----------------------------------------------------

    /** Validates campaigns one by one, collecting every problem, duplicate ids included. */
    private static final class Checker {
        final List<String> problems = new ArrayList<>();
        final List<Campaign> campaigns = new ArrayList<>();
        final Map<String, Integer> seen = new HashMap<>();
        final Set<String> exchanges; // the exchange ids campaigns may target

        Checker(Set<String> exchanges) {
            this.exchanges = exchanges;
        }

        void check(int i, FileCampaign fc) {
            Problems v = new Problems();
            Campaign c = validate(fc, v, exchanges);
            String name = campaignName(i, fc.id);
            for (String e : v.list) {
                problems.add("campaign " + name + ": " + e);
            }
            if (fc.id != null && !fc.id.isEmpty()) {
                Integer j = seen.putIfAbsent(fc.id, i);
                if (j != null) {
                    problems.add("campaign " + name + ": id: duplicate of campaign #" + j);
                }
            }
            if (v.list.isEmpty()) {
                campaigns.add(c);
            }
        }
    }

    private static String campaignName(int i, String id) {
        if (id != null && !id.isEmpty() && Ascii.isPrintable(id) && id.length() <= 64) {
            return id;
        }
        return "#" + i;
    }

    /** Collects "field: message" lines. */
    private static final class Problems {
        final List<String> list = new ArrayList<>();

        void add(String field, String msg) {
            list.add(field + ": " + msg);
        }

        /** A JSON number with at most six fractional digits, no exponent and no sign; -1 when it is not. */
        long decimal(String field, RawNumber raw) {
            String s = raw.text();
            if (!raw.isNumber()) {
                add(field, "must be a JSON number");
                return -1;
            }
            if (s.startsWith("-")) {
                add(field, "must not be negative");
                return -1;
            }
            if (s.indexOf('e') >= 0 || s.indexOf('E') >= 0) {
                add(field, "must be written without an exponent");
                return -1;
            }
            long m = Micros.parse(s);
            if (m == Micros.INVALID) {
                add(field, "must have at most 6 digits after the point and be at most " + Micros.format(Micros.MAX));
            }
            return m;
        }

        /** A JSON integer in [lo, hi]; 0 when it is not. */
        long integer(String field, RawNumber raw, long lo, long hi) {
            if (raw == null) {
                add(field, "required");
                return 0;
            }
            long n;
            try {
                n = raw.isNumber() ? Long.parseLong(raw.text()) : Long.MIN_VALUE;
            } catch (NumberFormatException e) {
                n = Long.MIN_VALUE;
            }
            if (n < lo || n > hi) {
                add(field, "must be an integer " + lo + "–" + hi);
                return 0;
            }
            return n;
        }

        List<Integer> intList(String field, List<RawNumber> raws, long lo, long hi) {
            if (raws == null) {
                return List.of();
            }
            if (raws.size() > MAX_LIST_LEN) {
                add(field, "at most " + MAX_LIST_LEN + " entries");
                return List.of();
            }
            List<Integer> out = new ArrayList<>(raws.size());
            for (int i = 0; i < raws.size(); i++) {
                out.add((int) integer(field + "[" + i + "]", raws.get(i), lo, hi));
            }
            return out;
        }

        /** Non-empty strings of at most 256 bytes, each accepted by ok when ok is not null. */
        List<String> stringList(String field, List<String> list, boolean required, Predicate<String> ok) {
            if (list == null) {
                list = List.of();
            }
            if (required && list.isEmpty()) {
                add(field, "at least one entry is required");
            }
            if (list.size() > MAX_LIST_LEN) {
                add(field, "at most " + MAX_LIST_LEN + " entries");
                return List.of();
            }
            List<String> out = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                String s = list.get(i) == null ? "" : list.get(i);
                if (s.isEmpty()) {
                    add(field + "[" + i + "]", "must not be empty");
                } else if (Ascii.utf8Length(s) > MAX_LIST_STRING) {
                    add(field + "[" + i + "]", "must be at most " + MAX_LIST_STRING + " bytes");
                } else if (ok != null && !ok.test(s)) {
                    add(field + "[" + i + "]", "malformed value " + Ascii.quote(s));
                }
                out.add(s);
            }
            return List.copyOf(out);
        }

        /** targeting.exchanges: ids of exchanges the server trades with. */
        List<String> exchangeList(List<String> list, Set<String> known) {
            List<String> out = stringList("targeting.exchanges", list, false, null);
            for (int i = 0; list != null && i < list.size(); i++) {
                String id = list.get(i);
                if (id != null && !id.isEmpty() && !known.contains(id)) {
                    add("targeting.exchanges[" + i + "]", "unknown exchange " + Ascii.quote(id)
                            + ": no exchange declares it");
                }
            }
            return out;
        }

        /** Names each field of another type's creatives: "only on KIND creatives". */
        void only(String p, String kind, List<String> fields) {
            for (String name : fields) {
                add(p + name, "only on " + kind + " creatives");
            }
        }

        /** Names a number field that must not be there. */
        void absent(String field, RawNumber raw, String msg) {
            if (raw != null) {
                add(field, msg);
            }
        }

        /** A text of lo–hi UTF-8 bytes (lo 0: it may be absent or empty); "" when absent. */
        String text(String field, String s, int lo, int hi) {
            if (s == null) {
                if (lo > 0) {
                    add(field, "required");
                }
                return "";
            }
            int n = Ascii.utf8Length(s);
            if (n < lo || n > hi) {
                add(field, "must be " + lo + "–" + hi + " bytes");
            }
            return s;
        }

        /** A media type: type/subtype, each made of RFC 6838's name characters. */
        void mediaType(String field, String s) {
            if (s == null || s.isEmpty()) {
                add(field, "required");
                return;
            }
            int slash = s.indexOf('/');
            if (slash <= 0 || slash == s.length() - 1 || !isMediaToken(s.substring(0, slash))
                    || !isMediaToken(s.substring(slash + 1))) {
                add(field, "must be a media type such as video/mp4");
            }
        }

        /** A campaign's deal ids: 1–64 printable ASCII each, unique, at most 256. */
        List<String> deals(List<String> list) {
            if (list == null) {
                return List.of();
            }
            if (list.size() > MAX_DEALS) {
                add("deals", "at most " + MAX_DEALS + " deals");
                return List.of();
            }
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < list.size(); i++) {
                String d = list.get(i) == null ? "" : list.get(i); // a null entry is Go's ""
                String f = "deals[" + i + "]";
                if (d.isEmpty() || d.length() > 64 || !Ascii.isPrintable(d)) {
                    add(f, "must be 1–64 printable ASCII characters");
                } else if (seen.contains(d)) {
                    add(f, "duplicate deal " + Ascii.quote(d));
                }
                seen.add(d);
            }
            List<String> out = new ArrayList<>(list.size());
            list.forEach(d -> out.add(d == null ? "" : d));
            return List.copyOf(out);
        }

        /** An absolute http or https URL; https only on a secure creative. */
        void url(String field, String s, boolean secure) {
            if (s == null || s.isEmpty()) {
                add(field, "required");
                return;
            }
            String scheme = FileRules.urlSchemeWithHost(s);
            if (!"http".equals(scheme) && !"https".equals(scheme)) {
                add(field, "must be an absolute http or https URL");
                return;
            }
            if (secure && !"https".equals(scheme)) {
                add(field, "must be https on a secure creative");
            }
        }
    }

    private static Campaign validate(FileCampaign fc, Problems v, Set<String> exchanges) {
        String id = fc.id == null ? "" : fc.id;
        if (id.isEmpty()) {
            v.add("id", "required");
        } else if (id.length() > 64 || !Ascii.isPrintable(id)) {
            v.add("id", "must be 1–64 printable ASCII characters");
        }
        String advertiser = fc.advertiser == null ? "" : fc.advertiser;
        if (advertiser.isEmpty()) {
            v.add("advertiser", "required");
        } else if (Ascii.utf8Length(advertiser) > 128) {
            v.add("advertiser", "must be 1–128 bytes");
        }
        List<String> adomain = v.stringList("adomain", fc.adomain, true, null);
        List<String> cat = v.stringList("cat", fc.cat, true, null);
        boolean active = false;
        String status = fc.status == null ? "" : fc.status;
        switch (status) {
            case "active" -> active = true;
            case "paused" -> { }
            case "" -> v.add("status", "required");
            default -> v.add("status", "must be \"active\" or \"paused\"");
        }
        long bidCpm = 0;
        if (fc.bidCpm == null) {
            v.add("bid_cpm", "required");
        } else {
            long m = v.decimal("bid_cpm", fc.bidCpm);
            if (m == 0) {
                v.add("bid_cpm", "must be > 0");
            }
            bidCpm = Math.max(m, 0);
        }
        long dailyBudget = Campaign.NO_DAILY_LIMIT; // absent or null; 0 is a budget that never bids
        if (fc.dailyBudget != null) {
            dailyBudget = Math.max(v.decimal("daily_budget", fc.dailyBudget), 0);
        }
        FileRules.Instant start = null;
        FileRules.Instant end = null;
        if (fc.start != null && !fc.start.isEmpty()) {
            start = FileRules.parseRfc3339(fc.start);
            if (start == null) {
                v.add("start", "must be an RFC 3339 time");
            }
        }
        if (fc.end != null && !fc.end.isEmpty()) {
            end = FileRules.parseRfc3339(fc.end);
            if (end == null) {
                v.add("end", "must be an RFC 3339 time");
            }
        }
        if (start != null && end != null && !end.isAfter(start)) {
            v.add("end", "must be after start");
        }
        long impressions = 0;
        long periodS = 0;
        // pacing: the Go bidder spreads "even" budgets over the day; this
        // baseline does not pace, so "even" bids as "asap" (the contract
        // allows it), but anything else is refused, as by the Go bidder.
        if (fc.pacing != null && !fc.pacing.isEmpty() && !fc.pacing.equals("asap") && !fc.pacing.equals("even")) {
            v.add("pacing", "must be \"asap\" or \"even\"");
        }
        if (fc.freqCap != null) {
            impressions = v.integer("freq_cap.impressions", fc.freqCap.impressions, 1, 1L << 40);
            periodS = v.integer("freq_cap.period_s", fc.freqCap.periodS, 1, Campaign.MAX_FREQ_PERIOD_S);
        }
        FileTargeting t = fc.targeting == null ? new FileTargeting() : fc.targeting;
        Campaign.Targeting targeting = new Campaign.Targeting(
                v.stringList("targeting.countries", t.countries, false, Ascii::isCountry),
                v.stringList("targeting.regions", t.regions, false, Ascii::isRegion),
                v.stringList("targeting.cities", t.cities, false, null),
                v.stringList("targeting.os", t.os, false, Ascii::isToken),
                v.intList("targeting.devtypes", t.devtypes, 1, 7),
                v.stringList("targeting.sites", t.sites, false, null),
                v.stringList("targeting.bundles", t.bundles, false, null),
                v.stringList("targeting.exclude_sites", t.excludeSites, false, null),
                v.stringList("targeting.exclude_bundles", t.excludeBundles, false, null),
                v.stringList("targeting.cats", t.cats, false, null),
                v.intList("targeting.hours", t.hours, 0, 23),
                v.exchangeList(t.exchanges, exchanges));
        List<FileCreative> fcrs = fc.creatives == null ? List.of() : fc.creatives;
        if (fcrs.isEmpty()) {
            v.add("creatives", "at least one creative is required");
        } else if (fcrs.size() > MAX_CREATIVES) {
            v.add("creatives", "at most " + MAX_CREATIVES + " creatives");
        }
        List<Campaign.Creative> creatives = new ArrayList<>(fcrs.size());
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < fcrs.size(); i++) {
            FileCreative fcr = fcrs.get(i) == null ? new FileCreative() : fcrs.get(i);
            String p = "creatives[" + i + "].";
            String crid = fcr.id == null ? "" : fcr.id;
            if (crid.isEmpty()) {
                v.add(p + "id", "required");
            } else if (crid.length() > 64 || !Ascii.isPrintable(crid)) {
                v.add(p + "id", "must be 1–64 printable ASCII characters");
            } else if (ids.contains(crid)) {
                v.add(p + "id", "duplicate creative id " + Ascii.quote(crid));
            }
            ids.add(crid);
            Campaign.Creative cr = creative(v, p, crid, fcr, advertiser);
            if (cr != null) {
                creatives.add(cr);
            }
        }
        List<String> deals = v.deals(fc.deals);
        boolean dealsOnly = fc.openAuction != null && !fc.openAuction;
        if (dealsOnly && (fc.deals == null || fc.deals.isEmpty())) {
            v.add("open_auction", "false needs at least one deal in deals");
        }
        if (!v.list.isEmpty()) {
            return null;
        }
        return new Campaign(id, advertiser, adomain, cat, active, bidCpm, dailyBudget,
                start == null ? Long.MIN_VALUE : start.ceilMillis(),
                end == null ? Long.MAX_VALUE : end.ceilMillis(),
                impressions, periodS, targeting, List.copyOf(creatives), Micros.toDecimal(bidCpm),
                deals, dealsOnly);
    }

    /**
     * Checks one creative by the rules of its type (banner, video or
     * native), in the Go server's order (bidder/validatecreative.go), naming
     * every problem, a field of another type included. Returns the creative,
     * or null when its type is unknown.
     */
    private static Campaign.Creative creative(Problems v, String p, String crid, FileCreative f, String advertiser) {
        Campaign.Kind kind;
        switch (f.type == null ? "" : f.type) {
            case "", "banner" -> kind = Campaign.Kind.BANNER;
            case "video" -> kind = Campaign.Kind.VIDEO;
            case "native" -> kind = Campaign.Kind.NATIVE;
            default -> {
                v.add(p + "type", "must be \"banner\", \"video\" or \"native\"");
                return null;
            }
        }
        v.url(p + "click_url", f.clickUrl, f.secure);
        int w = 0;
        int h = 0;
        switch (kind) {
            case BANNER -> {
                w = (int) v.integer(p + "w", f.w, 1, 10000);
                h = (int) v.integer(p + "h", f.h, 1, 10000);
                v.url(p + "image_url", f.imageUrl, f.secure);
                v.only(p, "video", f.videoFields());
                v.only(p, "native", f.nativeFields());
            }
            case VIDEO -> {
                w = (int) v.integer(p + "w", f.w, 1, 10000);
                h = (int) v.integer(p + "h", f.h, 1, 10000);
                v.integer(p + "duration_s", f.durationS, 1, MAX_DURATION_S);
                v.mediaType(p + "mime", f.mime);
                v.url(p + "media_url", f.mediaUrl, f.secure);
                v.integer(p + "bitrate_kbps", f.bitrateKbps, 1, MAX_BITRATE_KBPS);
                if (f.vastVersion != null && !VAST_VERSIONS.contains(f.vastVersion)) { // absent: 4.2
                    v.add(p + "vast_version", "must be \"2.0\", \"3.0\", \"4.0\", \"4.1\" or \"4.2\"");
                }
                if (f.imageUrl != null) {
                    v.add(p + "image_url", "only on banner and native creatives");
                }
                v.only(p, "native", f.nativeFields());
            }
            case NATIVE -> {
                v.text(p + "title", f.title, 1, MAX_TITLE);
                v.text(p + "body", f.body, 0, MAX_BODY);
                v.text(p + "sponsored", f.sponsored, 1, MAX_SPONSORED);
                v.text(p + "cta", f.cta, 0, MAX_CTA);
                v.url(p + "image_url", f.imageUrl, f.secure);
                v.integer(p + "image_w", f.imageW, 1, 10000);
                v.integer(p + "image_h", f.imageH, 1, 10000);
                if (f.iconUrl != null) {
                    v.url(p + "icon_url", f.iconUrl, f.secure);
                    v.integer(p + "icon_w", f.iconW, 1, 10000);
                    v.integer(p + "icon_h", f.iconH, 1, 10000);
                } else {
                    v.absent(p + "icon_w", f.iconW, "only with icon_url");
                    v.absent(p + "icon_h", f.iconH, "only with icon_url");
                }
                v.absent(p + "w", f.w, "only on banner and video creatives");
                v.absent(p + "h", f.h, "only on banner and video creatives");
                v.only(p, "video", f.videoFields());
            }
        }
        if (!v.list.isEmpty()) {
            return null; // the campaign is refused: no creative is kept
        }
        // Only a banner serves the form protocol: only a banner has markup.
        String adm = kind == Campaign.Kind.BANNER ? adm(f.clickUrl, f.imageUrl, w, h, advertiser) : null;
        return new Campaign.Creative(crid, kind, w, h, f.secure, f.imageUrl, f.clickUrl, adm);
    }

    /** The creative's markup, exactly as the contract spells it. */
    private static String adm(String click, String image, int w, int h, String advertiser) {
        return "<a href=\"" + Ascii.htmlEscape(click) + "\" target=\"_blank\"><img src=\"" + Ascii.htmlEscape(image)
                + "\" width=\"" + w + "\" height=\"" + h + "\" alt=\"" + Ascii.htmlEscape(advertiser) + "\"></a>";
    }
}
