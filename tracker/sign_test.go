package tracker

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
)

func testToken() Token {
	return Token{Bid: bidder.BidID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, TimeS: 1_796_000_000,
		Exchange: "adx", Campaign: "c-0001", Creative: "cr-0001-a"}
}

func TestSignatureVerifies(t *testing.T) {
	s := NewSigner(DeriveKey(bidder.HashKey{7}))
	tok := testToken()
	for _, e := range Events() {
		sig := s.AppendSig(nil, e, &tok)
		require.Len(t, sig, SigLen)
		assert.True(t, s.Verify(e, &tok, sig), e.String())
	}
}

// TestSignatureIsAnHMAC recomputes the signature with crypto/hmac from the
// documented layout, so that a signer that drops a field fails.
func TestSignatureIsAnHMAC(t *testing.T) {
	key := DeriveKey(bidder.HashKey{7})
	tok := testToken()
	in := []byte{byte(Click)}
	in = append(in, tok.Bid[:]...)
	in = append(in, 0, 0, 0, 0, 0x6b, 0x0c, 0xc9, 0x00) // 1,796,000,000 big-endian
	in = append(in, 3, 'a', 'd', 'x', 6, 'c', '-', '0', '0', '0', '1', 9, 'c', 'r', '-', '0', '0', '0', '1', '-', 'a')
	m := hmac.New(sha256.New, key[:])
	m.Write(in)
	want := base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
	assert.Equal(t, want, string(NewSigner(key).AppendSig(nil, Click, &tok)))
}

func TestEverySignedPartCounts(t *testing.T) {
	s := NewSigner(DeriveKey(bidder.HashKey{7}))
	tok := testToken()
	sig := s.AppendSig(nil, Impression, &tok)
	for name, change := range map[string]func(*Token){
		"bid":      func(t *Token) { t.Bid[15] ^= 1 },
		"time":     func(t *Token) { t.TimeS++ },
		"exchange": func(t *Token) { t.Exchange = "default" },
		"campaign": func(t *Token) { t.Campaign = "c-0002" },
		"creative": func(t *Token) { t.Creative = "cr-0001-b" },
		// moving bytes from one part to the next keeps the concatenation
		"boundary": func(t *Token) { t.Campaign, t.Creative = "c-0001c", "r-0001-a" },
	} {
		forged := tok
		change(&forged)
		assert.False(t, s.Verify(Impression, &forged, sig), name)
	}
	assert.False(t, s.Verify(Click, &tok, sig), "an impression's signature is not a click's")
	other := NewSigner(DeriveKey(bidder.HashKey{8}))
	assert.False(t, other.Verify(Impression, &tok, sig), "another state's key")
	for _, bad := range []string{"", "short", string(sig) + "A", "!!!!!!!!!!!!!!!!!!!!!!"} {
		assert.False(t, s.Verify(Impression, &tok, []byte(bad)), bad)
	}
}

func TestDeriveKeyIsStable(t *testing.T) {
	assert.Equal(t, DeriveKey(bidder.HashKey{1}), DeriveKey(bidder.HashKey{1}))
	assert.NotEqual(t, DeriveKey(bidder.HashKey{1}), DeriveKey(bidder.HashKey{2}))
	assert.NotEqual(t, Key{}, DeriveKey(bidder.HashKey{}))
}

func TestEventNames(t *testing.T) {
	for _, e := range Events() {
		got, ok := ParseEvent(e.String())
		require.True(t, ok)
		assert.Equal(t, e, got)
	}
	_, ok := ParseEvent("win")
	assert.False(t, ok)
	assert.Equal(t, "unknown", Event(200).String())
}

func BenchmarkAppendSig(b *testing.B) {
	s := NewSigner(DeriveKey(bidder.HashKey{7}))
	tok := testToken()
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.AppendSig(buf[:0], Impression, &tok)
	}
}
