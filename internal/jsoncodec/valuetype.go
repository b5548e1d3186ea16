package jsoncodec

import jsoniter "github.com/json-iterator/go"

// ValueType is the kind of the next JSON value, as WhatIsNext sees it from
// its first byte.
type ValueType = jsoniter.ValueType

// The kinds of JSON values.
const (
	InvalidValue = jsoniter.InvalidValue // not the start of a value: ',', ':', '}', ']', the end of the input…
	StringValue  = jsoniter.StringValue
	NumberValue  = jsoniter.NumberValue
	NilValue     = jsoniter.NilValue
	BoolValue    = jsoniter.BoolValue
	ArrayValue   = jsoniter.ArrayValue
	ObjectValue  = jsoniter.ObjectValue
)

// emptyKeyBefore reports whether data[:head] ends with `{ "" :` or `, "" :`
// (blanks allowed between the tokens).
func emptyKeyBefore(data []byte, head int) bool {
	p := head - 1
	back := func() {
		for p >= 0 && (data[p] == ' ' || data[p] == '\t' || data[p] == '\n' || data[p] == '\r') {
			p--
		}
	}
	back()
	if p < 0 || data[p] != ':' {
		return false
	}
	p--
	back()
	if p < 1 || data[p] != '"' || data[p-1] != '"' {
		return false
	}
	p -= 2
	back()
	return p >= 0 && (data[p] == '{' || data[p] == ',')
}

func lastNonBlank(b []byte) byte {
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}
