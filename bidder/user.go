package bidder

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/recbid/dspd/internal/bytesview"

	"github.com/dchest/siphash"
)

// UserKey names a user in the books: a keyed 128-bit hash (SipHash-2-4) of
// the request's user id. The books keep only this, never the user id, so
// that bid records and frequency counters are small and hold no pointers.
// Two users share a key with a chance of about n²/2¹²⁹ for n users, and
// without the key no one can choose user ids that collide. The zero value
// means no user.
type UserKey [16]byte

// IsZero reports whether k names no user.
func (k UserKey) IsZero() bool { return k == UserKey{} }

// HashKey is the secret key of the user hash. It belongs to the state, not
// to a process: a store that outlives the process (or is shared by
// replicas) keeps it, so that a user's frequency counters are found again
// after a restart and by every replica.
type HashKey [16]byte

// NewHashKey draws a key from the operating system's secure source.
func NewHashKey() HashKey {
	var k HashKey
	_, _ = rand.Read(k[:]) // never fails since Go 1.24
	return k
}

// ParseHashKey reads the 32 hex digits String writes.
func ParseHashKey(s string) (HashKey, error) {
	var k HashKey
	if len(s) != hex.EncodedLen(len(k)) {
		return k, fmt.Errorf("user hash key: want %d hex digits, have %d characters", hex.EncodedLen(len(k)), len(s))
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, fmt.Errorf("user hash key: %w", err)
	}
	return k, nil
}

// String returns the key as 32 hex digits, for the store that keeps it.
func (k HashKey) String() string { return hex.EncodeToString(k[:]) }

// User returns the key of a user id; the empty id has the zero key.
func (k HashKey) User(uid string) UserKey {
	if uid == "" {
		return UserKey{}
	}
	k0, k1 := binary.LittleEndian.Uint64(k[:8]), binary.LittleEndian.Uint64(k[8:])
	// The hash only reads the bytes: no copy of the string is needed.
	h0, h1 := siphash.Hash128(k0, k1, bytesview.Bytes(uid))
	var u UserKey
	binary.LittleEndian.PutUint64(u[:8], h0)
	binary.LittleEndian.PutUint64(u[8:], h1)
	if u.IsZero() {
		u[0] = 1 // keep the zero key for "no user"
	}
	return u
}

// String returns the key as 32 hex digits.
func (k UserKey) String() string { return hex.EncodeToString(k[:]) }
