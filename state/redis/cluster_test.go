package redis

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redisCluster is a Redis Cluster of the test's own: three masters on free
// loopback ports, their slots assigned by redis-cli --cluster create.
type redisCluster struct {
	nodes []*redisServer
}

// startCluster starts the cluster, or skips the test when redis-server is
// not installed (fails under CI).
func startCluster(t *testing.T) *redisCluster {
	t.Helper()
	needRedis(t)
	dir := t.TempDir()
	c := &redisCluster{}
	addrs := make([]string, 3)
	for i := range 3 {
		n := &redisServer{T: t, Port: freePort(t), Extra: []string{"--cluster-enabled", "yes",
			"--cluster-config-file", filepath.Join(dir, fmt.Sprintf("nodes-%d.conf", i)), "--cluster-node-timeout", "5000"}}
		n.Start()
		t.Cleanup(n.Stop)
		c.nodes = append(c.nodes, n)
		addrs[i] = "127.0.0.1:" + strconv.Itoa(n.Port)
	}
	out, err := exec.Command("redis-cli", append(append([]string{"--cluster", "create"}, addrs...),
		"--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	require.NoError(t, err, "redis-cli --cluster create: %s", out)
	// The masters learn of each other by gossip: wait until every one
	// says the cluster is up.
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range addrs {
		for {
			_, port, _ := net.SplitHostPort(a)
			info, err := exec.Command("redis-cli", "-p", port, "cluster", "info").Output()
			if err == nil && strings.Contains(string(info), "cluster_state:ok") {
				break
			}
			require.True(t, time.Now().Before(deadline), "cluster not up within 30 s: %s", info)
			time.Sleep(20 * time.Millisecond) // polling a server from outside: nothing to wait on
		}
	}
	return c
}

// url is the cluster's: one node to start from, the others as seeds.
func (c *redisCluster) URL() string {
	u := fmt.Sprintf("redis-cluster://127.0.0.1:%d", c.nodes[0].Port)
	for i, n := range c.nodes[1:] {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		u += fmt.Sprintf("%saddr=127.0.0.1:%d", sep, n.Port)
	}
	return u
}

// TestClusterSpreadsTheBooks: on a Redis Cluster, the books of different
// users and bids land on different masters (the hash tags place them by
// slot), so that the cluster shares the load rather than one node.
func TestClusterSpreadsTheBooks(t *testing.T) {
	c := startCluster(t)
	e := replica(t, c, "spread")
	// The books of one campaign share its hash tag (one win, one node);
	// twenty campaigns spread over the three masters.
	var campaigns []*bidder.Campaign
	for i := range 20 {
		campaigns = append(campaigns, testCampaign(fmt.Sprint("c", i), func(c *bidder.Campaign) {
			c.FreqCap = bidder.FreqCap{Impressions: 5, PeriodS: 3600}
			c.Targeting.Sites = []string{fmt.Sprint("site-", i, ".example")}
		}))
	}
	cat := bidder.NewCatalog(campaigns)
	for i := range 200 {
		req := testRequest(fmt.Sprint("user-", i))
		req.Site = fmt.Sprint("site-", i%20, ".example")
		d, err := e.Decide(t.Context(), cat, &req)
		require.NoError(t, err)
		require.True(t, d.Bid(), d.Reason.String())
		_, err = e.Win(t.Context(), d.BidID, 1_000_000)
		require.NoError(t, err)
	}
	holding := 0
	for _, n := range c.nodes {
		out, err := exec.Command("redis-cli", "-p", strconv.Itoa(n.Port), "dbsize").Output()
		require.NoError(t, err)
		keys, err := strconv.Atoi(strings.TrimSpace(string(out)))
		require.NoError(t, err)
		t.Logf("master on port %d holds %d keys", n.Port, keys)
		if keys > 0 {
			holding++
		}
	}
	assert.Equal(t, 3, holding, "every master holds part of the books")
}
