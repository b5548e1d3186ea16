package events

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/jsoncodec"
)

// SchemaVersion is the version of the record schema, written in every
// record as "v".
const SchemaVersion = 1

// Type is a record's type.
type Type uint8

// The record types.
const (
	TypeBid           Type = iota + 1 // a bid answered
	TypeWin                           // a win notice booked (the first valid one of its bid)
	TypeBilling                       // a billing notice (OpenRTB burl), the first of its bid
	TypeImpression                    // the impression tracker fired (the ad rendered)
	TypeClick                         // the click tracker fired
	TypeNoBid                         // a request answered without a bid (sampled)
	TypeStart                         // video: playback started
	TypeFirstQuartile                 // video: a quarter played
	TypeMidpoint                      // video: half played
	TypeThirdQuartile                 // video: three quarters played
	TypeComplete                      // video: played to the end
	TypeAudit                         // a change of the campaign set through the management API
	TypeError                         // video: the player reported an error (VAST\'s <Error>; Reason holds its code)

	numTypes
)

var typeNames = [numTypes]string{"", "bid", "win", "billing", "impression", "click", "nobid",
	"start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "audit", "error"}

// String returns the type as records spell it.
func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return "unknown"
}

// ParseType returns the type a name spells.
func ParseType(name string) (Type, bool) {
	for t := TypeBid; t < numTypes; t++ {
		if typeNames[t] == name {
			return t, true
		}
	}
	return 0, false
}

// Types lists every record type.
func Types() []Type {
	out := make([]Type, 0, numTypes-1)
	for t := TypeBid; t < numTypes; t++ {
		out = append(out, t)
	}
	return out
}

// Once reports whether a bid has at most one record of this type: its win,
// billing notice, impression, click and video progress events.
func (t Type) Once() bool { return t != TypeBid && t != TypeNoBid && t != TypeAudit && t < numTypes }

// Record is one event. Strings may alias the caller's buffers: Append
// copies them into the line.
type Record struct {
	Type     Type
	Time     time.Time // the server clock when it happened
	Instance string    // the replica that wrote it
	BidID    bidder.BidID
	Exchange string
	Campaign string
	Creative string
	// Price is the bid price of a bid, the clearing price of a win or a
	// billing notice (CPM micros); written only for those types.
	Price     bidder.Micros
	RequestID string // the bid request's id: known to bid and nobid records
	ImpID     string // the impression's id: known to bid and nobid records

	// bid
	Protocol string // "recbid" or "openrtb"
	W, H     int
	Floor    bidder.Micros
	User     bidder.UserKey // zero: no user, or no legal basis to keep one
	Deal     string
	Test     bool

	// win and billing: the bid's request time (its budget day) and price
	BidTimeS int64
	BidPrice bidder.Micros

	// nobid
	Reason string

	// audit
	Action  string // create, replace, patch, delete, import or seed (package managed)
	Actor   string // the API token's name
	Version int64  // the campaign's version after the change
	Before  []byte // the campaign as JSON before the change (null: created)
	After   []byte // after (null: deleted)
}

// timeLayout is RFC 3339 in UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// Append appends r as one JSON line (its newline included) to dst.
func Append(dst []byte, r *Record) []byte {
	dst = append(dst, `{"v":1,"type":"`...)
	dst = append(dst, r.Type.String()...)
	dst = append(dst, `","time":"`...)
	dst = r.Time.UTC().AppendFormat(dst, timeLayout)
	dst = append(dst, `","instance":`...)
	dst = jsoncodec.AppendString(dst, r.Instance)
	if r.Type != TypeAudit {
		dst = append(dst, `,"bidid":"`...)
		if r.BidID != (bidder.BidID{}) {
			dst = r.BidID.AppendHex(dst)
		}
		dst = append(dst, `","exchange":`...)
		dst = jsoncodec.AppendString(dst, r.Exchange)
	}
	dst = append(dst, `,"campaign":`...)
	dst = jsoncodec.AppendString(dst, r.Campaign)
	if r.Type != TypeAudit {
		dst = append(dst, `,"creative":`...)
		dst = jsoncodec.AppendString(dst, r.Creative)
		if r.Type == TypeBid || r.Type == TypeWin || r.Type == TypeBilling {
			dst = append(dst, `,"price_micros":`...)
			dst = strconv.AppendInt(dst, int64(r.Price), 10)
		}
		dst = append(dst, `,"request_id":`...)
		dst = jsoncodec.AppendString(dst, r.RequestID)
		dst = append(dst, `,"imp_id":`...)
		dst = jsoncodec.AppendString(dst, r.ImpID)
	}
	switch r.Type {
	case TypeBid:
		dst = appendBid(dst, r)
	case TypeWin, TypeBilling:
		dst = append(dst, `,"bid_time":"`...)
		dst = time.Unix(r.BidTimeS, 0).UTC().AppendFormat(dst, time.RFC3339)
		dst = append(dst, `","bid_price_micros":`...)
		dst = strconv.AppendInt(dst, int64(r.BidPrice), 10)
		if r.Deal != "" {
			dst = append(dst, `,"deal":`...)
			dst = jsoncodec.AppendString(dst, r.Deal)
		}
	case TypeError:
		dst = append(dst, `,"reason":`...)
		dst = jsoncodec.AppendString(dst, r.Reason)
	case TypeNoBid:
		dst = append(dst, `,"protocol":"`...)
		dst = append(dst, r.Protocol...)
		dst = append(dst, `","reason":`...)
		dst = jsoncodec.AppendString(dst, r.Reason)
	case TypeAudit:
		dst = append(dst, `,"action":`...)
		dst = jsoncodec.AppendString(dst, r.Action)
		dst = append(dst, `,"actor":`...)
		dst = jsoncodec.AppendString(dst, r.Actor)
		dst = append(dst, `,"version":`...)
		dst = strconv.AppendInt(dst, r.Version, 10)
		dst = append(dst, `,"before":`...)
		dst = appendRaw(dst, r.Before)
		dst = append(dst, `,"after":`...)
		dst = appendRaw(dst, r.After)
	}
	return append(dst, "}\n"...)
}

func appendBid(dst []byte, r *Record) []byte {
	dst = append(dst, `,"protocol":"`...)
	dst = append(dst, r.Protocol...)
	dst = append(dst, `","w":`...)
	dst = strconv.AppendInt(dst, int64(r.W), 10)
	dst = append(dst, `,"h":`...)
	dst = strconv.AppendInt(dst, int64(r.H), 10)
	dst = append(dst, `,"floor_micros":`...)
	dst = strconv.AppendInt(dst, int64(r.Floor), 10)
	dst = append(dst, `,"user":`...)
	if r.User.IsZero() {
		dst = append(dst, `null`...)
	} else {
		dst = append(dst, '"')
		dst = appendHex(dst, r.User[:])
		dst = append(dst, '"')
	}
	if r.Deal != "" {
		dst = append(dst, `,"deal":`...)
		dst = jsoncodec.AppendString(dst, r.Deal)
	}
	if r.Test {
		dst = append(dst, `,"test":true`...)
	}
	return dst
}

// appendRaw appends a JSON document, compacted onto one line, or null
// when there is none (or it is not valid JSON: a record is never broken).
func appendRaw(dst, doc []byte) []byte {
	if len(doc) == 0 {
		return append(dst, "null"...)
	}
	if !bytes.ContainsAny(doc, "\r\n") && json.Valid(doc) {
		return append(dst, doc...)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return append(dst, "null"...)
	}
	return append(dst, b.Bytes()...)
}

const hexDigits = "0123456789abcdef"

func appendHex(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}
