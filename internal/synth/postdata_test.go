package synth

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPostData(t *testing.T) {
	p := PostData()
	assert.GreaterOrEqual(t, len(p), 630)
	assert.LessOrEqual(t, len(p), 670)
	assert.Equal(t, p, PostData())
	q := checkBody(t, p)

	want := map[string]string{
		"w": "320", "h": "50", "country": "CN", "region": "CN-31", "city": "Shanghai",
		"devtype": "4", "os": "android", "cat": "IAB12,IAB12-1", "secure": "1",
		"tmax": "120", "floor": "0.5", "cur": "USD",
	}
	for k, v := range want {
		assert.Equal(t, v, q.Get(k), k)
	}
	for _, k := range []string{"uid", "ip", "ua", "lat", "lon", "bundle"} {
		assert.NotEmpty(t, q.Get(k), k)
	}
}

// TestPostDataWins checks that PostData gets a bid from the default campaigns
// at a price of at least its floor, with a secure 320x50 creative.
func TestPostDataWins(t *testing.T) {
	cs := Campaigns(1000, DefaultSeed)
	d, err := decide(PostData(), cs)
	require.NoError(t, err)
	require.Empty(t, d.reason, "PostData must win a bid")
	assert.GreaterOrEqual(t, d.price, int64(500_000))
	for _, c := range cs {
		if c.ID != d.campaign {
			continue
		}
		for _, cr := range c.Creatives {
			if cr.ID == d.creative {
				assert.Equal(t, 320, cr.W)
				assert.Equal(t, 50, cr.H)
				assert.True(t, cr.Secure)
			}
		}
	}
	t.Logf("PostData wins %s with %s at %s", d.campaign, d.creative, FormatMicros(d.price))

	// Not by luck alone: the broad campaigns alone make it win.
	var broad []Campaign
	for i := 0; i < len(cs); i += broadEvery {
		broad = append(broad, cs[i])
	}
	d, err = decide(PostData(), broad)
	require.NoError(t, err)
	assert.Empty(t, d.reason)

	_, err = url.ParseQuery(PostData())
	assert.NoError(t, err)
}
