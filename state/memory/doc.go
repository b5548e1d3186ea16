// Package memory is dspd's in-process state: the budget and frequency
// counters (Ledger) and the bid records (BidStore) in sharded, pointer-free
// structures of this process, bounded and failing closed when full. It is
// what -state memory runs on, what the disk store keeps its working copy
// in, and what tests and benchmarks use.
package memory
