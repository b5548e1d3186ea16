package recbid.baseline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The targeting index, the same algorithm as the Go server's (bidder/index.go
 * and bidder/match.go): the counting algorithm of Whang et al., "Indexing
 * Boolean Expressions" (VLDB 2009), with the creative size in the key of
 * every posting list and satisfied attributes OR-ed into a bit mask.
 *
 * <p>Posting lists map each (size, attribute, value) to the campaigns that
 * accept it, as ascending campaign numbers (priority order). A request walks
 * only the lists of its own values, block by block in priority order, and
 * marks per campaign which attributes it satisfied; a campaign matches when
 * every attribute it restricts was satisfied and no exclusion list (its
 * exclude_sites/exclude_bundles, the request's bcat/badv) named it.
 * Campaigns that restrict nothing but the size sit in a "z" list.
 *
 * <p>Only banners are indexed, by size: the form protocol serves banners
 * only (contract version 3). A campaign with only video or native creatives
 * is in no size's lists, and a campaign with open_auction false (deals only)
 * in none at all. The Go server indexes video and native creatives under
 * keys of their own kind, which a form request never looks up, and drops
 * deal-only campaigns from every open-auction match: the same decisions.
 *
 * <p>Keys are lowered ASCII over the UTF-8 bytes of the values (see {@link
 * Ascii}), so lookups are the byte-wise, ASCII case-insensitive comparisons of
 * the contract.
 */
final class TargetingIndex {
    static final int COUNTRY = 1;
    static final int REGION = 1 << 1;
    static final int CITY = 1 << 2;
    static final int OS = 1 << 3;
    static final int DEVTYPE = 1 << 4;
    static final int INVENTORY = 1 << 5; // site in sites, or bundle in bundles
    static final int CATS = 1 << 6;
    static final int HOURS = 1 << 7;
    static final int EXCHANGE = 1 << 8;
    static final int EXCLUDED = 1 << 31;

    /** How many campaigns, in priority order, are matched at a time. */
    static final int BLOCK_SIZE = 4096;

    /** Values longer than this are never looked up (validation rejects them). */
    private static final int MAX_KEY_LEN = 256;

    private record SizeKey(int w, int h, boolean secure) {}

    /** The posting lists of the campaigns that have a creative of one size. */
    private static final class SizeIndex {
        int[] z; // no restriction but the size
        final Map<String, int[]> countries;
        final Map<String, int[]> regions;
        final Map<String, int[]> cities;
        final Map<String, int[]> oses;
        final Map<String, int[]> sites;
        final Map<String, int[]> bundles;
        final Map<String, int[]> cats;
        final Map<String, int[]> exchanges;
        final int[][] devtypes = new int[8][];
        final int[][] hours = new int[24][];

        SizeIndex(Builder b) {
            z = b.z.toArray();
            countries = Postings.freeze(b.countries);
            regions = Postings.freeze(b.regions);
            cities = Postings.freeze(b.cities);
            oses = Postings.freeze(b.oses);
            sites = Postings.freeze(b.sites);
            bundles = Postings.freeze(b.bundles);
            cats = Postings.freeze(b.cats);
            exchanges = Postings.freeze(b.exchanges);
            for (int d = 0; d < devtypes.length; d++) {
                devtypes[d] = b.devtypes[d].toArray();
            }
            for (int h = 0; h < hours.length; h++) {
                hours[h] = b.hours[h].toArray();
            }
        }

        static final class Builder {
            final Postings z = new Postings();
            final Map<String, Postings> countries = new HashMap<>();
            final Map<String, Postings> regions = new HashMap<>();
            final Map<String, Postings> cities = new HashMap<>();
            final Map<String, Postings> oses = new HashMap<>();
            final Map<String, Postings> sites = new HashMap<>();
            final Map<String, Postings> bundles = new HashMap<>();
            final Map<String, Postings> cats = new HashMap<>();
            final Map<String, Postings> exchanges = new HashMap<>();
            final Postings[] devtypes = new Postings[8];
            final Postings[] hours = new Postings[24];

            Builder() {
                Arrays.setAll(devtypes, i -> new Postings());
                Arrays.setAll(hours, i -> new Postings());
            }

            void add(int n, Campaign c, int required) {
                if (required == 0) {
                    z.add(n);
                    return;
                }
                Campaign.Targeting t = c.targeting();
                Postings.addAll(countries, t.countries(), n);
                Postings.addAll(regions, t.regions(), n);
                Postings.addAll(cities, t.cities(), n);
                Postings.addAll(oses, t.os(), n);
                Postings.addAll(sites, t.sites(), n);
                Postings.addAll(bundles, t.bundles(), n);
                Postings.addAll(cats, t.cats(), n);
                Postings.addAll(exchanges, t.exchanges(), n);
                for (int d : t.devtypes()) {
                    devtypes[d].add(n);
                }
                for (int h : t.hours()) {
                    hours[h].add(n);
                }
            }
        }
    }

    private final Map<SizeKey, SizeIndex> sizes;
    private final int[] required; // attribute bits each campaign restricts
    private final long[] flightStart;
    private final long[] flightEnd;
    private final Map<String, int[]> excludeSites;
    private final Map<String, int[]> excludeBundles;
    private final Map<String, int[]> blockCats; // every prefix of every campaign cat: a bcat entry covering it
    private final Map<String, int[]> blockAdv; // campaign adomains
    private final ThreadLocal<Matcher> matchers;

    TargetingIndex(List<Campaign> cs) {
        int n = cs.size();
        required = new int[n];
        flightStart = new long[n];
        flightEnd = new long[n];
        Map<SizeKey, SizeIndex.Builder> builders = new HashMap<>();
        Map<String, Postings> exclSites = new HashMap<>();
        Map<String, Postings> exclBundles = new HashMap<>();
        Map<String, Postings> bcats = new HashMap<>();
        Map<String, Postings> badv = new HashMap<>();
        List<SizeKey> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Campaign c = cs.get(i);
            flightStart[i] = c.startMs();
            flightEnd[i] = c.endMs();
            // A campaign that bids only in its deals (open_auction false)
            // never bids on the form protocol, which has no deals: it is
            // left out of the index, as the Go server leaves it out of every
            // open-auction decision before the floor and the caps, so it
            // changes no no-bid reason.
            if (!c.active() || c.dealsOnly()) {
                continue;
            }
            Campaign.Targeting t = c.targeting();
            int req = 0;
            req |= t.countries().isEmpty() ? 0 : COUNTRY;
            req |= t.regions().isEmpty() ? 0 : REGION;
            req |= t.cities().isEmpty() ? 0 : CITY;
            req |= t.os().isEmpty() ? 0 : OS;
            req |= t.devtypes().isEmpty() ? 0 : DEVTYPE;
            req |= t.sites().isEmpty() && t.bundles().isEmpty() ? 0 : INVENTORY;
            req |= t.cats().isEmpty() ? 0 : CATS;
            req |= t.hours().isEmpty() ? 0 : HOURS;
            req |= t.exchanges().isEmpty() ? 0 : EXCHANGE;
            required[i] = req;

            keys.clear();
            for (Campaign.Creative cr : c.creatives()) {
                if (cr.kind() != Campaign.Kind.BANNER) {
                    continue; // video and native ads never serve the form protocol, whatever their size
                }
                SizeKey k = new SizeKey(cr.w(), cr.h(), false);
                if (!keys.contains(k)) {
                    keys.add(k);
                }
                if (cr.secure()) {
                    k = new SizeKey(cr.w(), cr.h(), true);
                    if (!keys.contains(k)) {
                        keys.add(k);
                    }
                }
            }
            for (SizeKey k : keys) {
                builders.computeIfAbsent(k, x -> new SizeIndex.Builder()).add(i, c, req);
            }
            Postings.addAll(exclSites, t.excludeSites(), i);
            Postings.addAll(exclBundles, t.excludeBundles(), i);
            Postings.addAll(badv, c.adomain(), i);
            for (String cat : c.cat()) {
                String key = Ascii.bytesOf(cat);
                for (int j = 1; j < key.length(); j++) {
                    if (key.charAt(j) == '-') {
                        Postings.add(bcats, key.substring(0, j), i);
                    }
                }
                Postings.add(bcats, key, i);
            }
        }
        Map<SizeKey, SizeIndex> sz = new HashMap<>();
        builders.forEach((k, b) -> sz.put(k, new SizeIndex(b)));
        sizes = Map.copyOf(sz);
        excludeSites = Postings.freeze(exclSites);
        excludeBundles = Postings.freeze(exclBundles);
        blockCats = Postings.freeze(bcats);
        blockAdv = Postings.freeze(badv);
        matchers = ThreadLocal.withInitial(() -> new Matcher(n));
    }

    /**
     * Starts a decision on this thread's matcher: collects the posting lists
     * of the request's values. Returns null when no campaign has a creative
     * of the request's size.
     */
    Matcher prepare(BidRequest req) {
        SizeIndex si = sizes.get(new SizeKey(req.w, req.h, req.secure));
        if (si == null) {
            return null;
        }
        Matcher m = matchers.get();
        m.reset();
        m.add(si.z, 0);
        m.add(lookup(si.countries, req.country), COUNTRY);
        m.add(lookup(si.regions, req.region), REGION);
        m.add(lookup(si.cities, req.city), CITY);
        m.add(lookup(si.oses, req.os), OS);
        if (req.devType > 0 && req.devType < si.devtypes.length) {
            m.add(si.devtypes[req.devType], DEVTYPE);
        }
        m.add(lookup(si.sites, req.site), INVENTORY);
        m.add(lookup(si.bundles, req.bundle), INVENTORY);
        for (String cat : items(req.cat)) {
            for (int i = 1; i < cat.length(); i++) {
                if (cat.charAt(i) == '-') {
                    m.add(lookup(si.cats, cat.substring(0, i)), CATS);
                }
            }
            m.add(lookup(si.cats, cat), CATS);
        }
        if (req.timeMs >= 0) {
            m.add(si.hours[(int) (Math.floorDiv(req.timeMs, 3_600_000L) % 24)], HOURS);
        }
        m.add(lookup(si.exchanges, req.exchange.id()), EXCHANGE);
        // Exclusions come last: they only mark campaigns already touched.
        m.add(lookup(excludeSites, req.site), EXCLUDED);
        m.add(lookup(excludeBundles, req.bundle), EXCLUDED);
        for (String item : items(req.bcat)) {
            m.add(lookup(blockCats, item), EXCLUDED);
        }
        for (String item : items(req.badv)) {
            m.add(lookup(blockAdv, item), EXCLUDED);
        }
        return m;
    }

    private static int[] lookup(Map<String, int[]> m, String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_KEY_LEN) {
            return null;
        }
        return m.get(Ascii.lower(value));
    }

    /** The items of a comma list, spaces around them trimmed, empty items left out. */
    static List<String> items(String list) {
        if (list == null || list.isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>(4);
        int start = 0;
        while (start <= list.length()) {
            int comma = list.indexOf(',', start);
            int end = comma < 0 ? list.length() : comma;
            int a = start;
            int b = end;
            while (a < b && list.charAt(a) == ' ') {
                a++;
            }
            while (b > a && list.charAt(b - 1) == ' ') {
                b--;
            }
            if (a < b) {
                out.add(list.substring(a, b));
            }
            if (comma < 0) {
                break;
            }
            start = comma + 1;
        }
        return out;
    }

    /**
     * The per-decision working memory of the index, one per thread. Entries
     * of seen/mask are valid only where seen equals the current epoch, so
     * nothing is cleared between decisions.
     */
    final class Matcher {
        private int epoch;
        private final int[] seen;
        private final int[] mask;
        private int[][] lists = new int[16][];
        private int[] bits = new int[16];
        private int[] pos = new int[16];
        private int listCount;
        private int[] touched = new int[64];
        private int touchedCount;
        private int[] cands = new int[64];
        private int candCount;

        Matcher(int n) {
            seen = new int[n];
            mask = new int[n];
        }

        void reset() {
            if (++epoch == 0) { // wrapped: forget every mark
                Arrays.fill(seen, 0);
                epoch = 1;
            }
            listCount = 0;
        }

        void add(int[] ids, int bit) {
            if (ids == null || ids.length == 0) {
                return;
            }
            if (listCount == lists.length) {
                lists = Arrays.copyOf(lists, listCount * 2);
                bits = Arrays.copyOf(bits, listCount * 2);
                pos = Arrays.copyOf(pos, listCount * 2);
            }
            lists[listCount] = ids;
            bits[listCount] = bit;
            pos[listCount] = 0;
            listCount++;
        }

        /**
         * Collects the campaigns numbered below hi (and not seen in earlier
         * blocks) that are active, in flight at timeMs, accept the request
         * and have a creative of its size, in no particular order.
         */
        void matchBlock(long timeMs, int hi) {
            touchedCount = 0;
            candCount = 0;
            for (int l = 0; l < listCount; l++) {
                int[] ids = lists[l];
                int p = pos[l];
                if (bits[l] == EXCLUDED) {
                    for (; p < ids.length && ids[p] < hi; p++) {
                        int n = ids[p];
                        if (seen[n] == epoch) {
                            mask[n] |= EXCLUDED;
                        }
                    }
                } else {
                    int bit = bits[l];
                    for (; p < ids.length && ids[p] < hi; p++) {
                        int n = ids[p];
                        if (seen[n] != epoch) {
                            seen[n] = epoch;
                            mask[n] = 0;
                            if (touchedCount == touched.length) {
                                touched = Arrays.copyOf(touched, touchedCount * 2);
                            }
                            touched[touchedCount++] = n;
                        }
                        mask[n] |= bit;
                    }
                }
                pos[l] = p;
            }
            for (int i = 0; i < touchedCount; i++) {
                int n = touched[i];
                if (mask[n] == required[n] && timeMs >= flightStart[n] && timeMs < flightEnd[n]) {
                    if (candCount == cands.length) {
                        cands = Arrays.copyOf(cands, candCount * 2);
                    }
                    cands[candCount++] = n;
                }
            }
        }

        /** The candidates of the last block. */
        int[] candidates() {
            return cands;
        }

        int candidateCount() {
            return candCount;
        }

        /** Keeps only the candidates numbered below limit (those that clear the floor). */
        void keepBelow(int limit) {
            int k = 0;
            for (int i = 0; i < candCount; i++) {
                if (cands[i] < limit) {
                    cands[k++] = cands[i];
                }
            }
            candCount = k;
        }
    }

    /** A growing, ascending, duplicate-free list of campaign numbers. */
    private static final class Postings {
        private int[] ids = new int[4];
        private int size;

        /** Adds n unless the list already ends with it (a campaign that lists a value twice). */
        void add(int n) {
            if (size > 0 && ids[size - 1] == n) {
                return;
            }
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
            }
            ids[size++] = n;
        }

        int[] toArray() {
            return Arrays.copyOf(ids, size);
        }

        static void add(Map<String, Postings> m, String key, int n) {
            m.computeIfAbsent(Ascii.lower(key), k -> new Postings()).add(n);
        }

        static void addAll(Map<String, Postings> m, List<String> values, int n) {
            for (String v : values) {
                add(m, Ascii.bytesOf(v), n);
            }
        }

        static Map<String, int[]> freeze(Map<String, Postings> m) {
            Map<String, int[]> out = new HashMap<>(m.size() * 2);
            m.forEach((k, v) -> out.put(k, v.toArray()));
            return out;
        }
    }
}
