// Package reconcile checks dspd's event log (package events) against the
// books and against an exchange's invoice, and reads the log for people
// (Tail).
//
// # Summing a day
//
// A Summer sums the records of one UTC day, however they come: the
// segments of one or more directories (ReadDirs; each replica writes its
// own) or any stream of JSON lines (ReadLines: a Kafka topic's dump, say).
// Each record is counted under the day the books count it under:
//
//   - a bid under its request time (the record's "time"), test bids
//     ("test": true) left out, as the books leave them out;
//   - a win, and its clearing price as spend, under its bid's request time
//     ("bid_time"), not the notice's: a bid made at 23:59:59 and won at
//     00:00:01 is the earlier day's. A test bid's win writes no record, so
//     every win record counts;
//   - billing notices, impressions and clicks under their own time (the
//     books do not count them; they are reported beside the others).
//
// Records are counted once per (type, bid id): a stream read at least
// once, or a directory named twice, repeats records, and the repeats are
// dropped and counted (Sums.Duplicates). The set of the day's keys is held
// in memory: a few tens of bytes a counted record (a day of 100 million
// bids takes a few GB).
//
// # Against the books
//
// Compare sets the sums beside a Ledger's day counters (bids, wins,
// spend_micros) per campaign, for all exchanges and for each, and lists
// every difference, to the micro. Two ledgers: a running dspd's admin
// listener (AdminLedger, GET /admin/stats) and the state directory of a
// stopped dspd (StateLedger, disk.ReadDayStats).
//
// The books and the log agree once the day is over and its bids' win
// notices are in: a win is booked under its bid's day up to the bid's time
// to live (dspd -bid-ttl) after midnight, and a running dspd's newest
// records may still wait for their write (events.Config.Window). The
// books keep a day's counters for dspd -day-ttl; an older day is found in
// the log only.
//
// # Against an invoice
//
// ReadInvoice reads an exchange's invoice (CSV: bid id, clearing price)
// and CompareInvoice sets it beside the log's win records (Wins): bids
// billed that the log has no win of, wins not billed, and prices that
// differ, to the micro.
package reconcile
