package kafka

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/recbid/dspd/events"
)

func TestFields(t *testing.T) {
	line := func(r *events.Record) []byte { return bytes.TrimSuffix(events.Append(nil, r), []byte("\n")) }
	bid := record(1)
	bid.Instance = `host "a"\b` // escapes before the bid id
	audit := &events.Record{Type: events.TypeAudit, Time: base, Instance: "i", Campaign: "c-7", Version: 3}
	escaped := &events.Record{Type: events.TypeAudit, Time: base, Instance: "i", Campaign: `c-"7"`, Version: 3}
	nobid := &events.Record{Type: events.TypeNoBid, Time: base, Instance: "i", Reason: "no_match"}
	for _, tc := range []struct {
		name      string
		line      []byte
		typ, key  string
		fast      bool
		noKey     bool
		wantTime  time.Time
		noTypeKey bool
	}{
		{name: "bid", line: line(bid), typ: "bid", key: bid.BidID.String(), fast: true, wantTime: bid.Time},
		{name: "audit", line: line(audit), typ: "audit", key: "c-7", fast: true, wantTime: base},
		{name: "audit, escaped campaign", line: line(escaped), typ: "audit", key: `c-"7"`, wantTime: base},
		{name: "no bid: no key", line: line(nobid), typ: "nobid", noKey: true, fast: true, wantTime: base},
		{name: "other order", line: []byte(`{"bidid":"ab","type":"win","time":"2026-03-01T12:00:00Z"}`), typ: "win", key: "ab", wantTime: base},
		{name: "not JSON", line: []byte(`{"type":"bi`), noTypeKey: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, key := fields(tc.line)
			_, _, fast := fastFields(tc.line)
			assert.Equal(t, tc.fast, fast, "read in place")
			if tc.noTypeKey {
				assert.Nil(t, typ)
				assert.Nil(t, key)
				assert.True(t, recordTime(tc.line).IsZero())
				return
			}
			assert.Equal(t, tc.typ, string(typ))
			if tc.noKey {
				assert.Nil(t, key, "no key: spread over the partitions")
			} else {
				assert.Equal(t, tc.key, string(key))
			}
			assert.True(t, tc.wantTime.Equal(recordTime(tc.line)), "time %v", recordTime(tc.line))
		})
	}
}
