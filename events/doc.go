// Package events is dspd's event log: one JSON record per line for every
// bid, win, billing notice, impression, click and sampled no bid, written
// to rotated segment files that an operator can audit, reconcile against
// the books and an exchange's invoice, and ship to Kafka (package
// events/kafka).
//
// # Records
//
// A record is one JSON object on one line (record.go; docs/events.md
// describes every field). Records are encoded without allocation into the
// writer's own batch buffer, or into a caller's buffer when a durable state
// must commit a record with its books (see below).
//
// # Files
//
// A directory holds numbered segments (segment.go): one being written,
// NNNNNNNNNNNNNNNNNNNN.jsonl.open, and finished ones, .jsonl, or .jsonl.gz
// once compressed. A segment is finished (synced, closed, then renamed)
// when it reaches its size or its age, so that a reader never sees a
// half-written finished segment. At open, a line torn by a crash at the
// end of the open segment is cut off. Old segments go by age and total
// size, never one that has not been shipped yet (retention.go).
//
// # Durability
//
// One writer goroutine writes and syncs (Log). A record added with Add
// is written with the records of its window (Config.Window) in one write
// and one fsync; Add returns the Flush to wait on when the caller's answer
// must wait for it. Records a durable state committed with its books (a
// win with its claim: bidder.EventOutbox) are taken from the state's
// outbox, written and synced, and only then acknowledged to the state; at
// open, those still in the outbox that the open segment already holds are
// not written again, so that a crash between the sync and the
// acknowledgement writes nothing twice.
//
// On a full disk a write waits for room, tried again every
// Config.RetryEvery, resuming where it stopped, and the log reports itself
// unavailable (the server then makes no bids and refuses notices with a
// 503) until the write goes through: no record is ever dropped silently.
package events
