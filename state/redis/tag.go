package redis

import (
	"hash/fnv"

	"github.com/recbid/dspd/bidder"
)

// tag is a campaign's hash tag: 14 bits, as many as Redis Cluster has hash
// slots, so that campaigns spread over the nodes while all the keys of one
// win land on one.
type tag uint16

const tagBits = 14

// tagOf is a campaign's tag, from its id.
func tagOf(campaign string) tag {
	h := fnv.New32a()
	_, _ = h.Write([]byte(campaign))
	return tag(h.Sum32() & (1<<tagBits - 1))
}

// String is the tag as it stands in braces in the keys: four hex digits.
func (t tag) String() string {
	const hexDigits = "0123456789abcdef"
	return string([]byte{hexDigits[t>>12&0xf], hexDigits[t>>8&0xf], hexDigits[t>>4&0xf], hexDigits[t&0xf]})
}

// withTag writes t in the first 14 bits of a bid id; the other 114 stay
// random.
func withTag(id bidder.BidID, t tag) bidder.BidID {
	id[0] = id[0]&^0x3f | byte(t>>8)
	id[1] = byte(t)
	return id
}

// tagOfID is the tag a bid id carries.
func tagOfID(id bidder.BidID) tag { return tag(id[0]&0x3f)<<8 | tag(id[1]) }
