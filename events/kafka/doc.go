// Package kafka ships the event log's records (package events) to a Kafka
// topic with franz-go, from the segment files, off the bidding path: the
// log writes and syncs a record to disk first, and the Shipper reads the
// files behind it. A broker that is slow, down or unreachable makes the
// shipper lag; it never makes a bid or a notice wait, and dspd starts and
// serves while no broker answers (New does not connect).
//
// # Records
//
// Each record becomes one Kafka record: the value is its JSON line (without
// the newline), the key its bid id (an audit record's: its campaign; a
// record without either, a sampled no bid, has no key and is spread over
// the partitions), and one header, "type", its type. Records are
// partitioned by a hash of the key (franz-go's default partitioner hashes
// keys as Kafka's Java client does), so that every record of a bid goes to
// one partition, in the order the log holds them. The Kafka timestamp is
// the time of the produce; the record's own time is in the value.
//
// The producer is franz-go's idempotent producer with acks from all the
// in-sync replicas (acks=all).
//
// # Rounds
//
// The Shipper reads from the shipped position (Log.Shipped) up to the
// durable one (Log.Durable: never a record that is not synced), at most
// Config.MaxBatch records a round, and produces the round at once
// (ProduceSync: the client batches the records per partition, up to its
// batch size, and sends as soon as all are queued, without lingering). The
// round's records are acknowledged (or failed) before the next round is
// read, so that a record is never produced before an earlier one of the
// same key, even across retries. A finished segment is read to its end
// and the position then moves to the next segment (seq, 0), so that the
// retention may delete it; a segment renamed (finished, then compressed)
// while it is read is read on from the file already open, and one renamed
// before it is opened is found again by listing the directory. Offsets are
// in uncompressed bytes, the same in a plain and a compressed segment.
//
// With nothing new, the shipper polls Log.Durable (an atomic load) every
// Config.PollEvery.
//
// # Errors
//
// While the brokers cannot be reached, the client retries the round's
// produce requests itself, with the same producer id and sequence numbers
// (the brokers drop what they already hold), backing off up to
// Config.MaxRetryBackoff; brokers back are found within the client's
// metadata refresh (kgo.MetadataMinAge, 5 s by default) and a backoff.
// Records the client fails back (an unknown topic, a refused write) are
// produced again by the shipper, after a backoff, the failed ones only. No
// record is skipped, not even one Kafka refuses for good (larger than the
// topic's max.message.bytes): the shipper lags, the log keeps the records
// (its retention keeps every segment not wholly shipped with
// events.Config.KeepUnshipped), and the lag and the last error show in
// Stats.
//
// # Position and delivery guarantee
//
// The position after the last record of an unbroken run of acknowledged
// records is saved (Log.SaveShipped: written aside, synced and renamed) at
// most every Config.SaveEvery, and when Run stops. Delivery is at least
// once:
//
//   - Within one run of a Shipper, no record is produced twice: a round is
//     retried by the idempotent producer, and the shipper produces again
//     only the records the client failed back, which it never sent or the
//     broker refused.
//   - Across a crash (or a stop that cannot wait for the brokers), the
//     records after the last saved position are produced again by the
//     next run: those acknowledged after the last save, and those in
//     flight when the process stopped (which a broker may have written).
//     At most Config.SaveEvery of records plus one round, in practice.
//
// Consumers deduplicate by (type, bidid), which is unique for the records
// that happen once per bid (events.Type.Once: wins, billing notices,
// impressions, clicks, video events) and for bids; an audit record by
// (campaign, version).
//
// # Stopping
//
// Run returns once its context is done, after saving its position: it
// first waits up to Config.StopWait for the round in flight to be
// acknowledged, so that a stop with reachable brokers sends nothing twice.
// Stop the shipper before closing the log.
package kafka
