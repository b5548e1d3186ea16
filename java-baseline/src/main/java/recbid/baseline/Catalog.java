package recbid.baseline;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An immutable, indexed set of campaigns, numbered in priority order: bid
 * descending, then id ascending. Campaign number i clears a floor exactly
 * when i is below {@link #aboveFloor(long)}.
 */
final class Catalog {
    private final List<Campaign> campaigns; // priority order
    private final long[] bids; // bids[i] == campaigns.get(i).bidCpm(), descending
    private final TargetingIndex index;

    Catalog(List<Campaign> unordered) {
        List<Campaign> cs = new ArrayList<>(unordered);
        cs.sort(Comparator.comparingLong(Campaign::bidCpm).reversed().thenComparing(Campaign::id));
        this.campaigns = List.copyOf(cs);
        this.bids = cs.stream().mapToLong(Campaign::bidCpm).toArray();
        this.index = new TargetingIndex(this.campaigns);
    }

    int size() {
        return campaigns.size();
    }

    Campaign get(int n) {
        return campaigns.get(n);
    }

    TargetingIndex index() {
        return index;
    }

    /** How many campaigns, in priority order, bid at least floor. */
    int aboveFloor(long floor) {
        int lo = 0;
        int hi = bids.length;
        while (lo < hi) { // the first campaign bidding below the floor
            int mid = (lo + hi) >>> 1;
            if (bids[mid] >= floor) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
