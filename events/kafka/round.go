package kafka

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/recbid/dspd/events"
)

// round is the records of one produce round, read from the log: their
// lines in one buffer, and the Kafka records that alias them. It is
// reused once every record of it is settled.
type round struct {
	buf   []byte
	spans []span            // each record's line in buf
	ends  []events.Position // the position just past each record
	end   events.Position   // the reader's position after the round

	recs    []kgo.Record
	hdrs    []kgo.RecordHeader
	acked   []bool
	pending []int         // the records to produce (again)
	send    []*kgo.Record // pending's records, for the client
	failed  map[*kgo.Record]struct{}
	first   int // the records before it are all acknowledged
	done    int // records acknowledged
}

type span struct{ start, end int }

func (r *round) reset() {
	r.buf, r.spans, r.ends = r.buf[:0], r.spans[:0], r.ends[:0]
	r.first, r.done = 0, 0
}

// add appends a line read at the reader's position end.
func (r *round) add(line []byte, end events.Position) {
	start := len(r.buf)
	r.buf = append(r.buf, line...)
	r.spans = append(r.spans, span{start, len(r.buf)})
	r.ends = append(r.ends, end)
}

func (r *round) len() int { return len(r.spans) }

// build makes the Kafka records of the lines read, all pending.
func (r *round) build(topic string) {
	n := len(r.spans)
	r.recs = slices.Grow(r.recs[:0], n)[:n]
	r.hdrs = slices.Grow(r.hdrs[:0], n)[:n]
	r.acked = slices.Grow(r.acked[:0], n)[:n]
	r.pending = r.pending[:0]
	for i, sp := range r.spans {
		line := r.buf[sp.start:sp.end:sp.end]
		typ, key := fields(line)
		r.hdrs[i] = kgo.RecordHeader{Key: "type", Value: typ}
		r.recs[i] = kgo.Record{Topic: topic, Key: key, Value: line, Headers: r.hdrs[i : i+1 : i+1]}
		r.acked[i] = false
		r.pending = append(r.pending, i)
	}
}

// toSend returns the pending records, each reset to be produced anew.
func (r *round) toSend() []*kgo.Record {
	r.send = r.send[:0]
	for _, i := range r.pending {
		p := &r.recs[i]
		*p = kgo.Record{Topic: p.Topic, Key: p.Key, Value: p.Value, Headers: p.Headers}
		r.send = append(r.send, p)
	}
	return r.send
}

// settle takes a produce's results: the records acknowledged are done,
// the failed ones stay pending. It returns the records and the bytes newly
// acknowledged, and the first failure.
func (r *round) settle(results kgo.ProduceResults) (records, bytes int64, err error) {
	clear(r.failed)
	for _, res := range results {
		if res.Err != nil {
			if r.failed == nil {
				r.failed = map[*kgo.Record]struct{}{}
			}
			r.failed[res.Record] = struct{}{}
			if err == nil {
				err = res.Err
			}
		}
	}
	still := r.pending[:0]
	for _, i := range r.pending {
		if _, bad := r.failed[&r.recs[i]]; bad {
			still = append(still, i)
			continue
		}
		r.acked[i] = true
		r.done++
		records++
		bytes += int64(len(r.recs[i].Value))
	}
	r.pending = still
	for r.first < len(r.spans) && r.acked[r.first] {
		r.first++
	}
	return records, bytes, err
}

// shipped returns the position after the round's acknowledged prefix, or
// false when not one record of it is acknowledged.
func (r *round) shipped() (events.Position, bool) {
	switch {
	case r.first == len(r.spans):
		return r.end, true
	case r.first > 0:
		return r.ends[r.first-1], true
	}
	return events.Position{}, false
}

// oldest returns the time of the first record not acknowledged, or the
// zero time.
func (r *round) oldest() time.Time {
	if r.first == len(r.spans) {
		return time.Time{}
	}
	sp := r.spans[r.first]
	return recordTime(r.buf[sp.start:sp.end])
}

// unacked returns how many records of the round wait for their ack.
func (r *round) unacked() int { return len(r.spans) - r.done }
