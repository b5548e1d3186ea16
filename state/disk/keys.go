package disk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/cockroachdb/pebble/v2"

	"github.com/recbid/dspd/bidder"
)

// The database's keys, each led by one byte naming its kind:
//
//	'm' name                                   → meta (the user hash key)
//	'B' expiry-minute bid-id                   → a bid record
//	'W' expiry-minute bid-id                   → its claim (the bid was won)
//	'D' day campaign 0 exchange                → bids, wins, spend of a campaign's day (merged sums)
//	'F' expiry-minute user period window campaign → wins in a user's frequency window (merged sums)
//	'P', 'C'                                   → the pacing book (see pacing.go)
//	'T', 'O'                                   → event claims and the event log's outbox (see outbox.go)
//
// Bid records, claims and frequency counters lead with the minute they
// expire in, budget counters with their day, so that what has expired is a
// range at the front of its kind and leaves by one range deletion.
const (
	kindMeta  = 'm'
	kindBid   = 'B'
	kindClaim = 'W'
	kindDay   = 'D'
	kindFreq  = 'F'
)

// minute is the bucket of an expiry: the minute it ends in (rounded up, so
// that a whole bucket has expired once now reaches its start).
func minute(unixSeconds int64) uint32 {
	m := (unixSeconds + 59) / 60
	return uint32(max(0, min(m, math.MaxUint32)))
}

func metaKey(name string) []byte { return append([]byte{kindMeta}, name...) }

// bidKey is the key of a bid record (kindBid) or of its claim (kindClaim).
func bidKey(kind byte, expires int64, id bidder.BidID) []byte {
	return appendBidKey(make([]byte, 0, bidKeyLen), kind, expires, id)
}

// bidKeyLen is the length of a bid record's or claim's key.
const bidKeyLen = 1 + 4 + len(bidder.BidID{})

func appendBidKey(k []byte, kind byte, expires int64, id bidder.BidID) []byte {
	k = append(k, kind)
	k = binary.BigEndian.AppendUint32(k, minute(expires))
	return append(k, id[:]...)
}

// dayKey is the key of a campaign's day counters: exchange "" for the
// counters of all exchanges.
func dayKey(day bidder.Day, campaign, exchange string) []byte {
	k := make([]byte, 0, 1+4+len(campaign)+1+len(exchange))
	k = append(k, kindDay)
	k = binary.BigEndian.AppendUint32(k, uint32(int64(day)+math.MaxInt32+1)) // days before 1970 sort first
	k = append(k, campaign...)
	k = append(k, 0)
	return append(k, exchange...)
}

// freqKey is the key of a user's frequency counter, in the minute it
// expires in.
func freqKey(expires int64, user bidder.UserKey, period, window int64, campaign string) []byte {
	k := make([]byte, 0, 1+4+16+4+8+len(campaign))
	k = append(k, kindFreq)
	k = binary.BigEndian.AppendUint32(k, minute(expires))
	k = append(k, user[:]...)
	k = binary.BigEndian.AppendUint32(k, uint32(period))
	k = binary.BigEndian.AppendUint64(k, uint64(window))
	return append(k, campaign...)
}

// prefixUpTo is the upper bound of the keys of a kind whose 4-byte lead is
// below lead.
func prefixUpTo(kind byte, lead uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{kind}, lead)
}

// errCorrupt is the cause of every key or value that cannot be read back.
var errCorrupt = errors.New("disk: corrupt entry")

func parseDayKey(k []byte) (bidder.Day, string, string, error) {
	if len(k) < 6 || k[0] != kindDay {
		return 0, "", "", fmt.Errorf("%w: day key %q", errCorrupt, k)
	}
	day := bidder.Day(int64(binary.BigEndian.Uint32(k[1:5])) - math.MaxInt32 - 1)
	rest := k[5:]
	for i, c := range rest {
		if c == 0 {
			return day, string(rest[:i]), string(rest[i+1:]), nil
		}
	}
	return 0, "", "", fmt.Errorf("%w: day key %q", errCorrupt, k)
}

func parseFreqKey(k []byte) (expires int64, user bidder.UserKey, period, window int64, campaign string, err error) {
	if len(k) < 1+4+16+4+8 || k[0] != kindFreq {
		return 0, user, 0, 0, "", fmt.Errorf("%w: frequency key %q", errCorrupt, k)
	}
	expires = int64(binary.BigEndian.Uint32(k[1:5])) * 60
	copy(user[:], k[5:21])
	period = int64(binary.BigEndian.Uint32(k[21:25]))
	window = int64(binary.BigEndian.Uint64(k[25:33]))
	return expires, user, period, window, string(k[33:]), nil
}

// sums encodes counters as little-endian int64s, the operands of the
// store's merge operator.
func sums(v ...int64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func readSums(b []byte, n int) ([]int64, error) {
	if len(b) != 8*n {
		return nil, fmt.Errorf("%w: %d bytes of counters, want %d", errCorrupt, len(b), 8*n)
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out, nil
}

// adder is the store's merge operator: operands are vectors of int64 of one
// length, and merging adds them up. Its name is written in the database.
var adder = &pebble.Merger{
	Name: "dspd.add-int64.v1",
	Merge: func(_, value []byte) (pebble.ValueMerger, error) {
		a := &addMerge{}
		return a, a.MergeNewer(value)
	},
}

type addMerge struct{ sum []byte }

func (a *addMerge) MergeNewer(v []byte) error {
	if a.sum == nil {
		a.sum = append([]byte(nil), v...)
		return nil
	}
	if len(v) != len(a.sum) || len(v)%8 != 0 {
		return fmt.Errorf("%w: merging %d bytes into %d", errCorrupt, len(v), len(a.sum))
	}
	for i := 0; i < len(v); i += 8 {
		s := binary.LittleEndian.Uint64(a.sum[i:]) + binary.LittleEndian.Uint64(v[i:])
		binary.LittleEndian.PutUint64(a.sum[i:], s)
	}
	return nil
}

func (a *addMerge) MergeOlder(v []byte) error { return a.MergeNewer(v) }

func (a *addMerge) Finish(bool) ([]byte, io.Closer, error) { return a.sum, nil, nil }

// A bid record's value: a version byte, then expires, time, price and
// period as varints, a flags byte (test, user present), the user's 16 bytes
// when present, and the campaign, creative, exchange and pricing strings,
// each led by its length; version 2, a bid made in a deal, has the deal's
// id as a fifth string. A record of the open auction is written as
// version 1, byte for byte as before deals.
const (
	recordVersion     = 1
	recordVersionDeal = 2
)

func encodeRecord(rec bidder.BidRecord, expires int64) []byte {
	return appendRecord(make([]byte, 0, 64+len(rec.CampaignID)+len(rec.CreativeID)+len(rec.Exchange)+len(rec.Pricing)), rec, expires)
}

func appendRecord(b []byte, rec bidder.BidRecord, expires int64) []byte {
	if rec.Deal != "" {
		b = append(b, recordVersionDeal)
	} else {
		b = append(b, recordVersion)
	}
	b = binary.AppendVarint(b, expires)
	b = binary.AppendVarint(b, rec.TimeS)
	b = binary.AppendVarint(b, int64(rec.Price))
	b = binary.AppendVarint(b, rec.PeriodS)
	var flags byte
	if rec.Test {
		flags |= 1
	}
	if !rec.User.IsZero() {
		flags |= 2
	}
	b = append(b, flags)
	if flags&2 != 0 {
		b = append(b, rec.User[:]...)
	}
	for _, s := range [...]string{rec.CampaignID, rec.CreativeID, rec.Exchange, rec.Pricing} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	if rec.Deal != "" {
		b = binary.AppendUvarint(b, uint64(len(rec.Deal)))
		b = append(b, rec.Deal...)
	}
	return b
}

func decodeRecord(b []byte) (rec bidder.BidRecord, expires int64, err error) {
	return decodeRecordInterned(b, nil)
}

// interned holds the strings of the records read back, by the bytes
// they are encoded in: records repeat a few thousand (campaign, creative,
// exchange, pricing) tuples millions of times, and one map lookup a record
// finds its four.
type interned map[string][5]string

// decodeRecordInterned decodes a record, its strings through strs (nil:
// fresh copies).
func decodeRecordInterned(b []byte, strs *interned) (rec bidder.BidRecord, expires int64, err error) {
	bad := func(what string) error { return fmt.Errorf("%w: bid record: %s", errCorrupt, what) }
	if len(b) == 0 || (b[0] != recordVersion && b[0] != recordVersionDeal) {
		return rec, 0, bad("version")
	}
	nstrings := 4
	if b[0] == recordVersionDeal {
		nstrings = 5
	}
	b = b[1:]
	var ints [4]int64
	for i := range ints {
		v, n := binary.Varint(b)
		if n <= 0 {
			return rec, 0, bad("number")
		}
		ints[i], b = v, b[n:]
	}
	expires, rec.TimeS, rec.Price, rec.PeriodS = ints[0], ints[1], bidder.Micros(ints[2]), ints[3]
	if len(b) == 0 {
		return rec, 0, bad("flags")
	}
	flags := b[0]
	b = b[1:]
	rec.Test = flags&1 != 0
	if flags&2 != 0 {
		if len(b) < 16 {
			return rec, 0, bad("user")
		}
		copy(rec.User[:], b[:16])
		b = b[16:]
	}
	five, ok := [5]string{}, false
	if strs != nil {
		five, ok = (*strs)[string(b)]
	}
	if !ok {
		if five, err = decodeStrings(b, nstrings); err != nil {
			return rec, 0, err
		}
		if strs != nil {
			if *strs == nil {
				*strs = interned{}
			}
			(*strs)[string(b)] = five
		}
	}
	rec.CampaignID, rec.CreativeID, rec.Exchange, rec.Pricing, rec.Deal = five[0], five[1], five[2], five[3], five[4]
	return rec, expires, nil
}

// decodeStrings decodes a record's n length-led strings (4, or 5 with a
// deal), its end.
func decodeStrings(b []byte, n int) (out [5]string, err error) {
	for i := range out[:n] {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return out, fmt.Errorf("%w: bid record: string", errCorrupt)
		}
		out[i], b = string(b[k:k+int(l)]), b[k+int(l):]
	}
	if len(b) != 0 {
		return out, fmt.Errorf("%w: bid record: trailing bytes", errCorrupt)
	}
	return out, nil
}
