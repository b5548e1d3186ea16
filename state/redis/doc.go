// Package redis keeps the bidder's state in Redis, so that many dspd
// replicas share budgets, frequency caps and bid records: a win notice may
// reach a replica other than the one that bid, and still count once.
//
// Store implements bidder.Ledger and bidder.BidStore over go-redis. Keys
// carry hash tags so that Redis Cluster can be used unchanged: a bid's
// record lives on its bid id's slot, a campaign's daily counters on the
// campaign's, a user's frequency counters on the user's.
//
//	dspd:bid:{<bid id>}                        hash: the bid record and its won flag
//	dspd:day:{<campaign>}:<day>                hash: b (bids), w (wins), s (spend, CPM micros)
//	dspd:freq:{<user>}:<campaign>:<p>:<window>  counter: wins in a frequency window
//
// What is atomic: saving a record (create-if-absent, with its expiry) and
// claiming it (price check and won flag together, one Lua script on one
// slot), so a win is claimed exactly once across all replicas; every counter
// update is an atomic increment. What is not: the claim and the increments
// that follow are separate commands (they live on different slots), so a
// Redis failure between them loses that win's accounting; it is reported as
// an error (503 to the exchange, logged, counted), never counted twice.
//
// On the hot path a decision costs at most one round trip: the counters of
// a chunk of candidates are read in one pipeline, and a campaign's daily
// spend is cached for a short, configurable time (default 100 ms), during
// which a campaign can overshoot its budget by the wins other replicas record
// (this replica's own wins update its cache at once). Bid counts, which only
// /admin/stats reads, are batched and written every 100 ms.
//
// When Redis is slow or down, every operation gives up after its timeout
// (default 25 ms), and once five in a row have failed a breaker answers
// "unavailable" at once for a pause (default 1 s) before trying again, so
// the bidder keeps answering
// (no bid for the campaigns whose state it cannot read) well within tmax,
// and recovers by itself when Redis returns.
package redis
