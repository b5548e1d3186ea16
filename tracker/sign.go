package tracker

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"hash"
	"sync"

	"github.com/recbid/dspd/bidder"
)

// SigLen is the length of a signature as written in a URL: 128 bits in
// base64url without padding.
const SigLen = 22

const macBytes = 16 // the HMAC's first 128 bits

// keyLabel separates the tracker key from every other use of the state's
// secret.
const keyLabel = "dspd tracking URLs v1"

// Key is the signing key of tracking URLs.
type Key [32]byte

// DeriveKey returns the tracking key of a state's secret: replicas sharing
// a state, and one process after a restart, derive the same.
func DeriveKey(secret bidder.HashKey) Key {
	m := hmac.New(sha256.New, secret[:])
	m.Write([]byte(keyLabel))
	var k Key
	copy(k[:], m.Sum(nil))
	return k
}

// Token is what a tracking URL says of its bid.
type Token struct {
	Bid      bidder.BidID
	TimeS    int64 // the bid's request time, Unix seconds
	Exchange string
	Campaign string
	Creative string
}

// Signer signs and checks tracking URLs with one key. It is safe for
// concurrent use.
type Signer struct {
	macs sync.Pool // of *mac
}

type mac struct {
	h   hash.Hash
	buf []byte
	sum []byte
}

// NewSigner returns a signer with key k.
func NewSigner(k Key) *Signer {
	s := &Signer{}
	s.macs.New = func() any {
		return &mac{h: hmac.New(sha256.New, k[:]), buf: make([]byte, 0, 256), sum: make([]byte, 0, sha256.Size)}
	}
	return s
}

// AppendSig appends the signature of event e for t to dst.
func (s *Signer) AppendSig(dst []byte, e Event, t *Token) []byte {
	m := s.macs.Get().(*mac)
	sum := m.compute(e, t)
	dst = base64.RawURLEncoding.AppendEncode(dst, sum)
	s.macs.Put(m)
	return dst
}

// Verify reports whether sig is the signature of event e for t, in
// constant time.
func (s *Signer) Verify(e Event, t *Token, sig []byte) bool {
	if len(sig) != SigLen {
		return false
	}
	var want [macBytes]byte
	if n, err := base64.RawURLEncoding.Decode(want[:], sig); err != nil || n != macBytes {
		return false
	}
	m := s.macs.Get().(*mac)
	ok := hmac.Equal(m.compute(e, t), want[:])
	s.macs.Put(m)
	return ok
}

// compute returns the first 128 bits of the HMAC of e and t, valid until
// m's next use. Each variable-length part is led by its length, so that no
// two tokens share an input.
func (m *mac) compute(e Event, t *Token) []byte {
	b := m.buf[:0]
	b = append(b, byte(e))
	b = append(b, t.Bid[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(t.TimeS))
	for _, part := range [...]string{t.Exchange, t.Campaign, t.Creative} {
		b = binary.AppendUvarint(b, uint64(len(part)))
		b = append(b, part...)
	}
	m.buf = b
	m.h.Reset()
	m.h.Write(b)
	m.sum = m.h.Sum(m.sum[:0])
	return m.sum[:macBytes]
}
