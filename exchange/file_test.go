package exchange

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/problems"
)

const validFile = `{"exchanges": [
  {"id": "adx", "allow": ["203.0.113.0/24", "2001:db8::/32"], "token": "a-long-random-secret",
   "price": {"encoding": "hmac-sha1", "e_key": "` + e1 + `", "i_key": "` + i1 + `", "unit": "cpm_micros"}},
  {"id": "ox", "price": {"encoding": "clear"}, "price_macro": "{WINNING_PRICE}"}
]}`

func TestParseValid(t *testing.T) {
	set, err := Parse([]byte(validFile))
	require.NoError(t, err)
	assert.Equal(t, []string{"adx", "ox"}, set.IDs())
	assert.False(t, set.IsImplicit())
	adx := set.Get("adx")
	require.NotNil(t, adx)
	assert.Equal(t, HMACSHA1, adx.Pricing.Encoding())
	assert.Equal(t, DefaultPriceMacro, adx.PriceMacro)
	assert.False(t, adx.Open())
	ox := set.Get("ox")
	assert.Equal(t, "{WINNING_PRICE}", ox.PriceMacro)
	assert.True(t, ox.Open())
	assert.Equal(t, "clear", ox.Pricing.Fingerprint())
	assert.Nil(t, set.Get("nope"))

	unpadded := strings.NewReplacer(e1, strings.TrimRight(e1, "="), i1, strings.TrimRight(i1, "=")).Replace(validFile)
	again, err := Parse([]byte(unpadded))
	require.NoError(t, err, "keys without padding")
	assert.Equal(t, adx.Pricing.Fingerprint(), again.Get("adx").Pricing.Fingerprint())
}

func TestImplicit(t *testing.T) {
	set := Implicit()
	assert.True(t, set.IsImplicit())
	assert.Equal(t, []string{DefaultID}, set.IDs())
	d := set.Get(DefaultID)
	assert.True(t, d.Open())
	assert.Equal(t, Clear, d.Pricing.Encoding())
	assert.Equal(t, Admitted, d.Admit(netip.MustParseAddr("198.51.100.7"), ""))
}

func TestParseNamesEveryProblem(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string
	}{
		{"not JSON", `{`, []string{"not an exchanges file: unexpected EOF"}},
		{"no list", `{}`, []string{`no "exchanges" list`}},
		{"empty list", `{"exchanges":[]}`, []string{"at least one exchange is required"}},
		{"unknown top key", `{"exchanges":[{"id":"a","price":{"encoding":"clear"}}],"x":1}`, []string{`unknown key "x"`}},
		{"every rule", `{"exchanges":[
			{"id":"Bad Id","price":{"encoding":"clear"}},
			{"id":"a","allow":[],"price":{"encoding":"clear"}},
			{"id":"b","allow":["10.0.0.1/8","nope"],"price":{"encoding":"clear"}},
			{"id":"c","token":"short","price":{"encoding":"clear"}},
			{"id":"d"},
			{"id":"e","price":{"encoding":"rot13"}},
			{"id":"f","price":{"encoding":"hmac-sha1","e_key":"c2hvcnQ","unit":"cpm"}},
			{"id":"g","price":{"encoding":"clear","unit":"cpm_micros"}},
			{"id":"h","price":{"encoding":"clear"},"price_macro":"a&b"},
			{"id":"i","price":{"encoding":"clear"},"allowed":["10.0.0.0/8"]},
			{"id":"j","price":{"encoding":"clear"}},
			{"id":"j","price":{"encoding":"clear"}}
		]}`, []string{
			"exchange #0: id: must be 1–32 of a-z, 0-9, _ and -",
			"exchange a: allow: at least one CIDR (leave allow out to admit any source)",
			`exchange b: allow[0]: "10.0.0.1/8" has host bits set (did you mean 10.0.0.0/8?)`,
			`exchange b: allow[1]: "nope" is not a CIDR such as 203.0.113.0/24`,
			"exchange c: token: must be 16–256 printable ASCII characters without spaces",
			`exchange d: price: required: {"encoding":"clear"} for decimal prices, or the hmac-sha1 keys`,
			`exchange e: price.encoding: must be "clear" or "hmac-sha1"`,
			"exchange f: price.e_key: must be 32 bytes in web-safe base64",
			"exchange f: price.i_key: required",
			`exchange f: price.unit: must be "cpm_micros" or "cpi_micros"`,
			`exchange g: price: e_key, i_key and unit are only for "hmac-sha1"`,
			`exchange h: price_macro: must be 1–64 printable ASCII characters without spaces, '"', '\', '&' or '#'`,
			`exchange #9: json: unknown field "allowed"`,
			"exchange j: id: duplicate",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Parse([]byte(tt.file))
			assert.Nil(t, set)
			var fe *problems.Error
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.True(t, errors.Is(err, ErrInvalidExchanges))
			assert.Equal(t, tt.want, fe.Problems)
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exchanges.json")
	require.NoError(t, os.WriteFile(path, []byte(validFile), 0o644))
	set, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, 2, set.Len())
	_, err = Load(filepath.Join(dir, "missing.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestAdmit(t *testing.T) {
	set, err := Parse([]byte(validFile))
	require.NoError(t, err)
	adx := set.Get("adx")
	const ok = "Bearer a-long-random-secret"
	tests := []struct {
		name, client, auth string
		want               Refusal
	}{
		{"inside allow, right token", "203.0.113.9", ok, Admitted},
		{"IPv6 inside allow", "2001:db8::1", ok, Admitted},
		{"IPv4-mapped IPv6 inside allow", "::ffff:203.0.113.9", ok, Admitted},
		{"scheme in another case", "203.0.113.9", "bearer a-long-random-secret", Admitted},
		{"outside allow", "198.51.100.1", ok, RefusedSource},
		{"no address", "", ok, RefusedSource},
		{"no token", "203.0.113.9", "", RefusedToken},
		{"wrong token", "203.0.113.9", "Bearer a-long-random-secreT", RefusedToken},
		{"token as basic", "203.0.113.9", "Basic a-long-random-secret", RefusedToken},
		{"token with a suffix", "203.0.113.9", ok + "x", RefusedToken},
		{"bare token", "203.0.113.9", "a-long-random-secret", RefusedToken},
	}
	for _, tt := range tests {
		var a netip.Addr
		if tt.client != "" {
			a = netip.MustParseAddr(tt.client)
		}
		assert.Equal(t, tt.want, adx.Admit(a, tt.auth), tt.name)
	}
	assert.Equal(t, "source", RefusedSource.String())
	assert.Equal(t, "token", RefusedToken.String())
}

func TestClient(t *testing.T) {
	proxies, err := ParseProxies("10.0.0.0/8, 127.0.0.1/32")
	require.NoError(t, err)
	_, err = ParseProxies("10.0.0.0/8,x")
	assert.Error(t, err)
	none, err := ParseProxies("")
	require.NoError(t, err)
	a := netip.MustParseAddr
	tests := []struct {
		name string
		p    Proxies
		peer string
		xff  []string
		want string // "" the zero address
	}{
		{"no trusted proxies: the peer, whatever XFF says", none, "198.51.100.1", []string{"203.0.113.9"}, "198.51.100.1"},
		{"an untrusted peer: its own address", proxies, "198.51.100.1", []string{"203.0.113.9"}, "198.51.100.1"},
		{"a trusted proxy: the client it names", proxies, "127.0.0.1", []string{"203.0.113.9"}, "203.0.113.9"},
		{"two trusted hops", proxies, "127.0.0.1", []string{"203.0.113.9, 10.1.2.3"}, "203.0.113.9"},
		{"a client forging the left", proxies, "127.0.0.1", []string{"203.0.113.9, 198.51.100.66"}, "198.51.100.66"},
		{"over several headers", proxies, "127.0.0.1", []string{"203.0.113.9", "10.1.2.3"}, "203.0.113.9"},
		{"garbage in the chain", proxies, "127.0.0.1", []string{"203.0.113.9, not-an-ip"}, ""},
		{"no header from a proxy", proxies, "127.0.0.1", nil, "127.0.0.1"},
	}
	for _, tt := range tests {
		got := tt.p.Client(a(tt.peer), tt.xff)
		if tt.want == "" {
			assert.False(t, got.IsValid(), tt.name)
			continue
		}
		assert.Equal(t, a(tt.want), got, tt.name)
	}
}
