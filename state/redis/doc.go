// Package redis keeps the bidder's state in Redis, so that many dspd
// replicas share budgets, frequency caps and bid records: a win notice may
// reach a replica other than the one that bid, and still count once.
//
// Store implements bidder.Ledger, bidder.BidStore and bidder.WinRecorder
// over go-redis. Keys carry hash tags so that Redis Cluster can be used
// unchanged, and every key a win writes carries its campaign's tag (14
// bits of a hash of the campaign id, as four hex digits, tag.go): the bid
// record, the campaign's daily counters and the user's frequency counters
// for the campaign all live on the campaign's slot. The bid id carries the
// same 14 bits (its other 114 are random), so that a win notice, which has
// only the id, finds the record's slot.
//
//	dspd:bid:{<tag>}:<bid id>                        hash: the bid record and its won flag
//	dspd:day:{<tag>}:<campaign>:<day>                hash: b (bids), w (wins), s (spend, CPM micros)
//	dspd:freq:{<tag>}:<campaign>:<user>:<p>:<window>  counter: wins in a frequency window
//
// What is atomic: saving a record (create-if-absent, with its expiry), and
// a win: the price check, the won flag, the day's wins and spend (total and
// per exchange) and the frequency counter in one Lua script on one slot
// (win.go), so a win is claimed and counted exactly once across all
// replicas, and a Redis failure leaves it either wholly recorded (the
// exchange's retry is a duplicate) or not at all (503, and the retry
// records it). Redis must persist every write it acknowledges for that to
// outlive a Redis crash: run it with appendonly yes and appendfsync always
// (docs/operations.md).
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
