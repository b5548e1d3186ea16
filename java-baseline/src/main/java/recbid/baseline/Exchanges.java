package recbid.baseline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The exchanges the server trades with, in file order, immutable: those of
 * the -exchanges file ({@link ExchangesFile}), or without one the implicit
 * exchange "default" (open, clear prices) on the bare paths.
 */
final class Exchanges {
    private final List<Exchange> list;
    private final Map<String, Exchange> byId;
    private final boolean implicit;

    Exchanges(List<Exchange> list, boolean implicit) {
        this.list = List.copyOf(list);
        Map<String, Exchange> m = new HashMap<>();
        for (Exchange e : list) {
            m.put(e.id(), e);
        }
        this.byId = Map.copyOf(m);
        this.implicit = implicit;
    }

    /** The set of a server without an exchanges file. */
    static Exchanges implicitDefault() {
        return new Exchanges(List.of(Exchange.implicitDefault()), true);
    }

    boolean isImplicit() {
        return implicit;
    }

    /** The exchange of an id, or null. */
    Exchange get(String id) {
        return byId.get(id);
    }

    /** The ids in file order: what a campaign's targeting.exchanges may name. */
    List<String> ids() {
        List<String> ids = new ArrayList<>(list.size());
        for (Exchange e : list) {
            ids.add(e.id());
        }
        return ids;
    }

    List<Exchange> all() {
        return list;
    }
}
