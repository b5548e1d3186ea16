package abrate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const wrkReport = `Running 1s test @ http://127.0.0.1:19598/dsp/recbid
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   821.70us  173.45us   4.52ms   86.67%
    Req/Sec    61.48k     2.60k   64.72k    70.00%
  61197 requests in 1.00s, 49.65MB read
Requests/sec:  61178.15
Transfer/sec:     49.64MB
`

func TestParseWrk(t *testing.T) {
	s, err := parseWrk(wrkReport)
	require.NoError(t, err)
	assert.Equal(t, Sample{RequestsPerSecond: 61178.15, Complete: 61197}, s)

	for _, tc := range []struct {
		name, report, wantErr string
	}{
		{"non-2xx answers", wrkReport + "  Non-2xx or 3xx responses: 12\n", "wrk: failed requests"},
		{"socket errors", wrkReport + "  Socket errors: connect 0, read 3, write 0, timeout 0\n", "wrk: failed requests"},
		{"no rate", "  61197 requests in 1.00s, 49.65MB read\n", "no Requests/sec or request count"},
		{"no count", "Requests/sec:  61178.15\n", "no Requests/sec or request count"},
		{"a rate that is no number", "  1 requests in 1.00s\nRequests/sec:  many\n", `"Requests/sec:  many"`},
	} {
		_, err := parseWrk(tc.report)
		assert.ErrorContains(t, err, tc.wantErr, tc.name)
	}
}
