// Package disk is dspd's durable embedded state, its default: the books in
// memory, as package state/memory keeps them, written behind to a Pebble
// database (CockroachDB's storage engine) in one directory, so that they
// survive a restart or a kill -9.
//
// The hot path reads from memory. A win notice is acknowledged only once
// its claim and its counters are durable: one batch, one synchronous
// commit, whose fsync Pebble shares with every commit in flight (group
// commit). Bid records go through a writer of their own, which commits the
// records that arrived since its last commit in one batch, with their bid
// counts summed per campaign: with no window, a bid waits for that commit;
// with a window (Config.BidWindow), it is answered at once and a crash can
// lose the records of the bids of the last window.
//
// At start, the records and counters still alive are read back into
// memory. Expired entries leave the disk by range deletions over keys that
// lead with their expiry (bid records, claims, frequency counters) or
// their day (budget counters).
//
// On a full disk a write waits for room, tried again every
// Config.RetryEvery, and the store refuses bids and wins (ErrUnavailable)
// until it goes through; a failed fsync or any other I/O error stops the
// process (Config.Fatal), as Pebble itself does. Two processes cannot
// share a directory: the second is told which process holds it.
//
// With Config.SyncHelper, the database's fsyncs are done by a helper
// process (package synchelper), so that a goroutine waiting for the disk
// does not hold a P.
package disk
