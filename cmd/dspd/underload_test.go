package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/internal/synth"
	"github.com/recbid/dspd/loadtest"
)

// TestShutdownUnderLoad stops dspd while loadgen drives it over 50
// keep-alive connections: run returns nil (the process exits 0) within the
// drain timeout, and every request the server answered reached the client.
// The requests carry the longest tmax the contract allows, so that none is
// shed for having waited in queues on a loaded machine (under the race
// detector beside other test packages): the test is of the drain.
func TestShutdownUnderLoad(t *testing.T) {
	body := bytes.Replace(postData(t), []byte("&tmax=120&"), []byte("&tmax=10000&"), 1)
	require.Contains(t, string(body), "&tmax=10000&")
	var answered atomic.Int64
	busy := make(chan struct{})
	var once sync.Once
	addr, stop := startDspd(t, func(c *config) { c.drainTimeout = 10 * time.Second }, hooks{
		served: func() {
			if answered.Add(1) == 300 {
				once.Do(func() { close(busy) })
			}
		},
	})
	results := make(chan *loadtest.Result, 1)
	go func() {
		res, err := loadtest.Run(context.Background(), loadtest.Config{URL: "http://" + addr + "/dsp/recbid",
			Duration: 3 * time.Second, Concurrency: 50, KeepAlive: true, Timeout: 5 * time.Second,
			Bodies: [][]byte{body}, ContentType: "application/x-www-form-urlencoded"})
		assert.NoError(t, err)
		results <- res
	}()
	<-busy
	began := time.Now()
	require.NoError(t, stop(), "a clean drain exits 0")
	assert.Less(t, time.Since(began), 10*time.Second, "within the drain timeout")
	res := <-results
	t.Logf("answered %d; client got %v, errors %v", answered.Load(), res.StatusCodes, res.Errors)
	assert.Equal(t, answered.Load(), res.StatusCodes["200"], "every answered request reached its client")
	assert.Len(t, res.StatusCodes, 1, "only bids")
}

// TestReloadUnderLoad swaps between two versions of a large campaigns file
// while clients bid: no request fails, and every bid comes whole from one
// version (its campaign and creative ids carry the version's prefix).
func TestReloadUnderLoad(t *testing.T) {
	n := 10_000
	if os.Getenv("DSPD_SOAK") != "" {
		n = 100_000
	}
	dir := t.TempDir()
	var a bytes.Buffer
	require.NoError(t, synth.WriteCampaigns(&a, synth.Campaigns(n, synth.DefaultSeed)))
	b := strings.ReplaceAll(strings.ReplaceAll(a.String(), `"id":"c-`, `"id":"b-`), `"id":"cr-`, `"id":"crb-`)
	fileA, fileB := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	require.NoError(t, os.WriteFile(fileA, a.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(fileB, []byte(b), 0o644))

	cfg := testConfig(t)
	live := filepath.Join(dir, "campaigns.json")
	require.NoError(t, os.Link(fileA, live))
	cfg.campaigns = live
	log := make(logLines, 1000)
	hup := make(chan os.Signal, 1)
	addrs := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, slog.New(log), hup, hooks{listening: func(p, _ net.Addr) { addrs <- p }})
	}()
	url := "http://" + (<-addrs).String() + "/dsp/recbid"
	log.waitFor(t, "campaigns loaded")

	corpus, err := os.ReadFile("../../testdata/requests.txt")
	require.NoError(t, err)
	bodies := append([]string{string(postData(t))}, strings.Split(strings.TrimSpace(string(corpus)), "\n")[:2000]...)
	var stopClients atomic.Bool
	var total, failed, mixed, fromA, fromB atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 10 * time.Second}
			for i := w; !stopClients.Load(); i++ {
				resp, err := client.Post(url, "application/x-www-form-urlencoded", strings.NewReader(bodies[i%len(bodies)]))
				total.Add(1)
				if err != nil {
					failed.Add(1)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 500 || resp.StatusCode == 400 {
					failed.Add(1)
				}
				if resp.StatusCode != http.StatusOK {
					continue
				}
				var bid struct {
					SeatBid []struct{ Bid []struct{ CID, CrID string } } `json:"seatbid"`
				}
				if json.Unmarshal(body, &bid) != nil {
					failed.Add(1)
					continue
				}
				x := bid.SeatBid[0].Bid[0]
				switch {
				case strings.HasPrefix(x.CID, "c-") && strings.HasPrefix(x.CrID, "cr-"):
					fromA.Add(1)
				case strings.HasPrefix(x.CID, "b-") && strings.HasPrefix(x.CrID, "crb-"):
					fromB.Add(1)
				default:
					mixed.Add(1)
				}
			}
		}()
	}
	for i := range 4 {
		next := fileB
		if i%2 == 1 {
			next = fileA
		}
		require.NoError(t, os.Remove(live))
		require.NoError(t, os.Link(next, live))
		hup <- os.Interrupt
		log.waitFor(t, "campaigns loaded")
	}
	stopClients.Store(true)
	wg.Wait()
	cancel()
	require.NoError(t, <-done)
	t.Logf("%d campaigns, 4 reloads: %d requests, %d bids from A, %d from B, %d failed, %d mixed",
		n, total.Load(), fromA.Load(), fromB.Load(), failed.Load(), mixed.Load())
	assert.Zero(t, failed.Load())
	assert.Zero(t, mixed.Load())
	assert.Positive(t, fromA.Load())
	assert.Positive(t, fromB.Load())
}
