package exchange

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/countrand"
)

func mustKey(t testing.TB, s string) []byte {
	t.Helper()
	k := make([]byte, KeyBytes)
	require.NoError(t, decodeBase64(k, []byte(s)))
	return k
}

// The published key pairs and prices.
const (
	e1 = "sIxwz7yw62yrfoLGt12lIHKuYrK_S5kLuApI2BQe7Ac="
	i1 = "v3fsVcMBMMHYzRhi7SpM0sdqwzvAxM6KPTu9OtVod5I="
	e2 = "skU7Ax_NL5pPAFyKdkfZjZz2-VhIN8bjj1rVFOaJ_5o="
	i2 = "arO23ykdNqUQ5LEoQ0FVmPkBd7xB5CO89PDZlSjpFxo="
)

// TestPublishedVectors: the examples that circulate for the scheme decrypt
// to their published prices, and the three that circulate for the second
// key pair but fail its integrity check are refused.
func TestPublishedVectors(t *testing.T) {
	tests := []struct {
		e, i, price string
		want        uint64 // 0: refused
	}{
		{e1, i1, "SjpvRwAB4kB7jEpgW5IA8p73ew9ic6VZpFsPnA", 709959680},
		{e1, i1, "5nmwvgAM0UABI0VniavN72_sy3T6V9ohlpvOpA==", 1200000},
		{e2, i2, "YWJjMTIzZGVmNDU2Z2hpN7fhCuPemCce_6msaw", 100},
		{e2, i2, "YWJjMTIzZGVmNDU2Z2hpN7fhCuPemCAWJRxOgA", 1900},
		{e2, i2, "YWJjMTIzZGVmNDU2Z2hpN7fhCuPemC32prpWWw", 2700},
		{e2, i2, "WEp8wQAAAABnFd5EkB2k1wJeFcAj-Z_JVOeGzA==", 0},
		{e2, i2, "WEp8sQAAAACwF6CtLJrXSRFBM8UiTTIyngN-og==", 0},
		{e2, i2, "WEp8nQAAAAADG-y45xxIC1tMWuTjzmDW6HtroQ==", 0},
		{e2, i2, "SjpvRwAB4kB7jEpgW5IA8p73ew9ic6VZpFsPnA", 0}, // the first pair's price under the second pair
	}
	for _, tt := range tests {
		p, err := EncryptedPricing(mustKey(t, tt.e), mustKey(t, tt.i), false)
		require.NoError(t, err)
		got, err := p.Decrypt([]byte(tt.price))
		if tt.want == 0 {
			assert.ErrorIs(t, err, ErrPrice, tt.price)
			continue
		}
		require.NoError(t, err, tt.price)
		assert.Equal(t, tt.want, got, tt.price)
	}
}

func TestDecode(t *testing.T) {
	cpm, err := EncryptedPricing(mustKey(t, e1), mustKey(t, i1), false)
	require.NoError(t, err)
	cpi, err := EncryptedPricing(mustKey(t, e1), mustKey(t, i1), true)
	require.NoError(t, err)
	mint := func(p *Pricing, v uint64) string {
		s, err := p.Encrypt(v, rand.Reader)
		require.NoError(t, err)
		return s
	}
	long := mint(cpm, 1_250_000)
	ffIV, err := cpm.Encrypt(7, strings.NewReader(strings.Repeat("\xff", ivBytes))) // the iv is "_____…" in web-safe base64
	require.NoError(t, err)
	require.Contains(t, ffIV, "_")
	tests := []struct {
		name  string
		p     *Pricing
		price string
		want  bidder.Micros // 0: refused
	}{
		{"clear", ClearPricing(), "1.25", 1_250_000},
		{"clear zero", ClearPricing(), "0", 0},
		{"clear zero, long", ClearPricing(), "0.000000", 0},
		{"clear malformed", ClearPricing(), "1,25", 0},
		{"clear macro unfilled", ClearPricing(), "${AUCTION_PRICE}", 0},
		{"clear, an encrypted price", ClearPricing(), long, 0},
		{"encrypted cpm", cpm, long, 1_250_000},
		{"encrypted, padded", cpm, long + "==", 1_250_000},
		{"encrypted, one pad", cpm, long + "=", 0},
		{"encrypted, a non-canonical last character", cpm, nonCanonical(long), 0},
		{"encrypted, too much padding", cpm, long + "===", 0},
		{"encrypted, standard base64", cpm, strings.NewReplacer("-", "+", "_", "/").Replace(ffIV), 0},
		{"encrypted, web-safe base64 of the same", cpm, ffIV, 7},
		{"encrypted cpi", cpi, mint(cpi, 1_250), 1_250_000},
		{"a clear decimal to an encrypting exchange", cpm, "1.25", 0},
		{"encrypted zero", cpm, mint(cpm, 0), 0},
		{"encrypted, above the largest price", cpm, mint(cpm, uint64(bidder.MaxDecimalMicros)+1), 0},
		{"encrypted cpi, past overflow", cpi, mint(cpi, 1<<63), 0},
		{"encrypted, the largest price", cpm, mint(cpm, uint64(bidder.MaxDecimalMicros)), bidder.MaxDecimalMicros},
		{"27 bytes", cpm, base64.RawURLEncoding.EncodeToString(make([]byte, 27)), 0},
		{"29 bytes", cpm, base64.RawURLEncoding.EncodeToString(make([]byte, 29)), 0},
		{"empty", cpm, "", 0},
	}
	for _, tt := range tests {
		got, err := tt.p.Decode([]byte(tt.price))
		if tt.want == 0 {
			assert.ErrorIs(t, err, ErrPrice, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}
}

// TestTamperedPricesAreRefused: flipping any bit of a valid encrypted
// price makes it fail.
// nonCanonical spells s's bytes another way: its last character with one of
// the low bits set that an unpadded 28-byte string does not use.
func nonCanonical(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last^1])
}

func TestTamperedPricesAreRefused(t *testing.T) {
	p, err := EncryptedPricing(mustKey(t, e1), mustKey(t, i1), false)
	require.NoError(t, err)
	s, err := p.Encrypt(1_000_000, new(countrand.Reader))
	require.NoError(t, err)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	require.NoError(t, err)
	for i := range raw {
		for bit := range 8 {
			bad := append([]byte(nil), raw...)
			bad[i] ^= 1 << bit
			_, err := p.Decrypt([]byte(base64.RawURLEncoding.EncodeToString(bad)))
			require.ErrorIs(t, err, ErrPrice, "byte %d bit %d", i, bit)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := EncryptedPricing(mustKey(t, e1), mustKey(t, i1), false)
	b, _ := EncryptedPricing(mustKey(t, e1), mustKey(t, i1), false)
	c, _ := EncryptedPricing(mustKey(t, e2), mustKey(t, i2), false)
	d, _ := EncryptedPricing(mustKey(t, e1), mustKey(t, i1), true)
	assert.Equal(t, a.Fingerprint(), b.Fingerprint(), "the same rules")
	assert.NotEqual(t, a.Fingerprint(), c.Fingerprint(), "other keys")
	assert.NotEqual(t, a.Fingerprint(), d.Fingerprint(), "another unit")
	assert.Equal(t, "clear", ClearPricing().Fingerprint())
	assert.Regexp(t, `^hmac-sha1:[0-9a-f]{16}$`, a.Fingerprint())
	assert.NotContains(t, a.Fingerprint(), e1[:8])
	_, err := EncryptedPricing(make([]byte, 31), make([]byte, 32), false)
	assert.Error(t, err)
}

// FuzzDecrypt runs the decoder on arbitrary strings: it never panics, and
// it accepts nothing that the keys did not sign.
func FuzzDecrypt(f *testing.F) {
	for _, s := range []string{"SjpvRwAB4kB7jEpgW5IA8p73ew9ic6VZpFsPnA", "5nmwvgAM0UABI0VniavN72_sy3T6V9ohlpvOpA==",
		"WEp8wQAAAABnFd5EkB2k1wJeFcAj-Z_JVOeGzA==", "", "=", "1.25", strings.Repeat("A", 38)} {
		f.Add(s)
	}
	p, err := EncryptedPricing(mustKey(f, e1), mustKey(f, i1), false)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := p.Decrypt([]byte(s))
		if err != nil {
			return
		}
		// Accepted: it must be a well-formed price carrying the keys' signature.
		raw := make([]byte, encryptedBytes)
		require.NoError(t, decodeBase64(raw, []byte(s)), "accepted %q", s)
		again, err := p.Encrypt(v, strings.NewReader(string(raw[:ivBytes])))
		require.NoError(t, err)
		require.Equal(t, strings.TrimRight(s, "="), again, "accepted %q without the keys' signature", s)
	})
}

func BenchmarkDecrypt(b *testing.B) {
	p, err := EncryptedPricing(mustKey(b, e1), mustKey(b, i1), false)
	require.NoError(b, err)
	price := []byte("SjpvRwAB4kB7jEpgW5IA8p73ew9ic6VZpFsPnA")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Decode(price); err != nil {
			b.Fatal(err)
		}
	}
}
