package synth

import (
	"bytes"
	"encoding/json"
)

// obj is a JSON object that keeps its keys in the order they were set, so
// that generated requests read like the ones exchanges send (id first, ext
// last) and stay byte-for-byte reproducible. Values are anything
// encoding/json writes: strings, json.Number, ints, bools, nil, slices,
// other objs.
type obj []member

type member struct {
	key   string
	value any
}

// set replaces key's value, or appends the key when it is new.
func (o *obj) set(key string, value any) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, member{key, value})
}

// insertBefore sets key to value, a new key, before the first of the keys
// before that o has, or at the end.
func (o *obj) insertBefore(key string, value any, before ...string) {
	for i, m := range *o {
		for _, b := range before {
			if m.key == b {
				*o = append((*o)[:i], append(obj{{key, value}}, (*o)[i:]...)...)
				return
			}
		}
	}
	o.set(key, value)
}

// remove deletes key, if o has it.
func (o *obj) remove(key string) {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// setIf sets key only when value is not the empty string.
func (o *obj) setIf(key, value string) {
	if value != "" {
		o.set(key, value)
	}
}

// get returns key's value, or nil.
func (o obj) get(key string) any {
	for _, m := range o {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// child returns the object under key, creating it (at the end) when absent.
func (o *obj) child(key string) *obj {
	for i := range *o {
		if (*o)[i].key == key {
			if c, ok := (*o)[i].value.(*obj); ok {
				return c
			}
		}
	}
	c := &obj{}
	o.set(key, c)
	return c
}

// MarshalJSON writes the members in order, without HTML escaping.
func (o obj) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeJSON(&buf, m.key); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := writeJSON(&buf, m.value); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// writeJSON appends v's JSON text without HTML escaping and without the
// newline json.Encoder adds.
func writeJSON(buf *bytes.Buffer, v any) error {
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
	return nil
}

// replace puts key and value in the place of old, keeping the order; it
// reports whether o had old.
func (o *obj) replace(old, key string, value any) bool {
	for i := range *o {
		if (*o)[i].key == old {
			(*o)[i] = member{key, value}
			return true
		}
	}
	return false
}
