package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/exchange"
)

// The keys and token of exchange adx in the hostile test.
const (
	hostileEKey  = "sIxwz7yw62yrfoLGt12lIHKuYrK_S5kLuApI2BQe7Ac="
	hostileIKey  = "v3fsVcMBMMHYzRhi7SpM0sdqwzvAxM6KPTu9OtVod5I="
	hostileToken = "the-exchange-secret-token"
)

// clientFrom is an HTTP client whose connections leave from a loopback
// address of its own (127.0.0.2 is another host as far as dspd can tell).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}
}

// TestHostileExchangeTraffic plays an attacker against a real dspd whose
// only exchange, adx, admits 127.0.0.1 with a token and encrypts its
// prices: 1,000 bid requests from 127.0.0.2 get 403 and change nothing;
// 1,000 forged prices (random 28 bytes in valid web-safe base64) are all
// refused; then the exchange's own notices book exactly the sum of their
// decrypted prices.
func TestHostileExchangeTraffic(t *testing.T) {
	file := filepath.Join(t.TempDir(), "exchanges.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"exchanges":[{"id":"adx","allow":["127.0.0.1/32"],"token":"`+hostileToken+
		`","price":{"encoding":"hmac-sha1","e_key":"`+hostileEKey+`","i_key":"`+hostileIKey+`","unit":"cpm_micros"}}]}`), 0o644))
	cfg := testConfig(t)
	cfg.exchanges = file
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, slog.New(slog.DiscardHandler), nil, hooks{
			listening: func(p, a net.Addr) { addrs <- [2]string{p.String(), a.String()} },
		})
	}()
	a := <-addrs
	t.Cleanup(func() { cancel(); <-done })
	public, admin := "http://"+a[0], "http://"+a[1]
	post := string(postData(t))
	stats := func() map[string]any {
		resp, err := http.Get(admin + "/admin/stats?campaign=c-0790")
		require.NoError(t, err)
		defer resp.Body.Close()
		var v map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
		return v
	}
	before := stats()
	bid := func(c *http.Client, token string) (int, string) {
		resp := askAgainOnTimeout(t, func() (*http.Response, error) {
			req, err := http.NewRequest(http.MethodPost, public+"/dsp/recbid/adx", strings.NewReader(post))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			return c.Do(req)
		})
		defer resp.Body.Close()
		var b struct {
			BidID string `json:"bidid"`
		}
		body, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(body, &b)
		return resp.StatusCode, b.BidID
	}

	attacker := clientFrom("127.0.0.2")
	for i := range 1000 {
		code, _ := bid(attacker, hostileToken) // even with the stolen token
		require.Equal(t, http.StatusForbidden, code, "request %d from outside allow", i)
	}
	assert.Equal(t, before, stats(), "nothing recorded")

	exchangeClient := clientFrom("127.0.0.1")
	code, _ := bid(exchangeClient, "")
	require.Equal(t, http.StatusForbidden, code, "the right source without the token")
	var ids []string
	for range 20 {
		code, id := bid(exchangeClient, hostileToken)
		require.Equal(t, http.StatusOK, code)
		ids = append(ids, id)
	}

	win := func(c *http.Client, id, price string) int {
		resp, err := c.Get(public + "/dsp/win/adx?bidid=" + id + "&price=" + price)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	raw := make([]byte, 28)
	for i := range 1000 {
		_, _ = rand.Read(raw)
		require.Equal(t, http.StatusBadRequest, win(attacker, ids[i%len(ids)], base64.RawURLEncoding.EncodeToString(raw)),
			"forged price %d", i)
	}
	assert.Equal(t, 20.0, stats()["bids"])
	assert.Equal(t, 0.0, stats()["wins"], "no forged price was booked")

	ek, _ := base64.URLEncoding.DecodeString(hostileEKey)
	ik, _ := base64.URLEncoding.DecodeString(hostileIKey)
	pricing, err := exchange.EncryptedPricing(ek, ik, false)
	require.NoError(t, err)
	var sum int64
	for i, id := range ids {
		price := int64(1_000_000 + 137*i) // up to the bid's 11.98 CPM
		enc, err := pricing.Encrypt(uint64(price), rand.Reader)
		require.NoError(t, err)
		require.Equal(t, http.StatusNoContent, win(attacker, id, enc), "a notice from anywhere, with the exchange's price")
		require.Equal(t, http.StatusNoContent, win(exchangeClient, id, enc), "a duplicate")
		sum += price
	}
	after := stats()
	assert.Equal(t, 20.0, after["wins"])
	assert.Equal(t, strconv.FormatInt(sum, 10), strconv.FormatFloat(after["spend_micros"].(float64), 'f', -1, 64),
		"spend is the sum of the decrypted prices, to the micro")
}
