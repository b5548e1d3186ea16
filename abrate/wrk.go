package abrate

import (
	"fmt"
	"strconv"
	"strings"
)

// parseWrk reads wrk's report: the rate from "Requests/sec:", the count
// from "N requests in …". Non-2xx answers and socket errors are errors,
// as a failed request is to loadgen.
func parseWrk(out string) (Sample, error) {
	if strings.Contains(out, "Non-2xx") || strings.Contains(out, "Socket errors") {
		return Sample{}, fmt.Errorf("wrk: failed requests:\n%s", out)
	}
	var s Sample
	var rate, count bool
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return Sample{}, fmt.Errorf("wrk: %q: %w", line, err)
			}
			s.RequestsPerSecond, rate = v, true
		case len(f) >= 3 && f[1] == "requests" && f[2] == "in":
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return Sample{}, fmt.Errorf("wrk: %q: %w", line, err)
			}
			s.Complete, count = n, true
		}
	}
	if !rate || !count {
		return Sample{}, fmt.Errorf("wrk: no Requests/sec or request count in its report:\n%s", out)
	}
	return s, nil
}
