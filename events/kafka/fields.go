package kafka

import (
	"bytes"
	"encoding/json"
	"time"
)

// The start of every line events.Append writes, and the fields after it.
const (
	lineLead      = `{"v":1,"type":"`
	timeField     = `,"time":"`
	instanceField = `,"instance":`
	bidField      = `,"bidid":"`
	campaignField = `,"campaign":`
	auditType     = "audit"
)

// fields returns a record's type and its key: its bid id, or an audit
// record's campaign; nil for what it does not have. The line is read in
// place, in the order events.Append writes; any other line is decoded.
func fields(line []byte) (typ, key []byte) {
	typ, key, ok := fastFields(line)
	if ok {
		return typ, key
	}
	var r struct {
		Type     string `json:"type"`
		BidID    string `json:"bidid"`
		Campaign string `json:"campaign"`
	}
	if json.Unmarshal(line, &r) != nil {
		return nil, nil
	}
	k := r.BidID
	if r.Type == auditType {
		k = r.Campaign
	}
	return nonEmpty([]byte(r.Type)), nonEmpty([]byte(k))
}

func fastFields(line []byte) (typ, key []byte, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(lineLead))
	if !ok {
		return nil, nil, false
	}
	if typ, rest, ok = bytes.Cut(rest, []byte(`"`)); !ok {
		return nil, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(timeField)); !ok {
		return nil, nil, false
	}
	if _, rest, ok = bytes.Cut(rest, []byte(`"`)); !ok {
		return nil, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(instanceField)); !ok {
		return nil, nil, false
	}
	if _, rest, ok = jsonString(rest); !ok {
		return nil, nil, false
	}
	if string(typ) == auditType {
		if rest, ok = bytes.CutPrefix(rest, []byte(campaignField)); !ok {
			return nil, nil, false
		}
		key, _, ok = jsonString(rest)
		if !ok || bytes.IndexByte(key, '\\') >= 0 { // escaped: decoded instead
			return nil, nil, false
		}
		return typ, nonEmpty(key), true
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(bidField)); !ok {
		return nil, nil, false
	}
	if key, _, ok = bytes.Cut(rest, []byte(`"`)); !ok {
		return nil, nil, false
	}
	return typ, nonEmpty(key), true
}

// jsonString returns the contents of the JSON string b starts with, still
// escaped, and what follows it.
func jsonString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[1:i], b[i+1:], true
		}
	}
	return nil, nil, false
}

func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// recordTime returns a record's time, the zero time when it has none.
func recordTime(line []byte) time.Time {
	if rest, ok := bytes.CutPrefix(line, []byte(lineLead)); ok {
		if _, rest, ok = bytes.Cut(rest, []byte(`"`+timeField)); ok {
			if v, _, ok := bytes.Cut(rest, []byte(`"`)); ok {
				if t, err := time.Parse(time.RFC3339Nano, string(v)); err == nil {
					return t
				}
			}
		}
	}
	var r struct {
		Time time.Time `json:"time"`
	}
	_ = json.Unmarshal(line, &r)
	return r.Time
}
