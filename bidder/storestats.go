package bidder

// The optional abilities of a state store, beyond Ledger and BidStore:
// what a store can say about itself for the operator's metrics. A store
// implements those it has; a server reads them with a type assertion on
// the named interface (package api's metrics), never on an anonymous one.

// UpkeepReporter is a bounded store that says how it keeps its bound
// (the memory stores, and the disk state's memory views).
type UpkeepReporter interface {
	Upkeep() Upkeep
}

// FailureCounter is a store that counts its failed operations: Redis
// operations that failed or timed out, disk writes that found the disk
// full.
type FailureCounter interface {
	Failures() int64
}

// AvailabilityReporter is a store that can be unable to write for a while
// (the disk state on a full disk): no bids, win notices answered 503.
type AvailabilityReporter interface {
	Unavailable() bool
}

// LostBidCounter is a shared store that counts the batches of bid counts
// (for the stats) it could not write.
type LostBidCounter interface {
	LostBidCounts() int64
}

// SizeReporter is a ledger that says how many per-campaign daily counters
// and per-user frequency counters it holds.
type SizeReporter interface {
	Sizes() (days, freq int)
}
