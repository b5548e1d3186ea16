package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDecodeBidRequestSyntax pins how the walk reads JSON at the edges of
// its syntax, as it read it with json-iterator: which bodies are JSON to it
// (bad_body otherwise), and what it then reads. Some readings are lenient
// beyond JSON (a null that closes an object, -.5, -01, control characters
// after an escape): they are kept so that no request served before is
// refused now. Field errors, the city and tmax are checked for the bodies
// read as JSON.
func TestDecodeBidRequestSyntax(t *testing.T) {
	const req = `{"id":"a","imp":[{"id":"1","banner":{"w":300,"h":250}}]`
	tests := []struct {
		body   string
		jsonOK bool
		ferr   string // "code field", or ""
		city   string
		tmax   int
	}{
		// after the request's object: blanks only; a null ends it as '}' would, a '{' reads as ','.
		{req + `}`, true, "", "", 0},
		{req + `} `, true, "", "", 0},
		{req + `}}`, false, "", "", 0},
		{req + `} {}`, false, "", "", 0},
		{req + ` null`, true, "", "", 0},
		{req + ` null}`, false, "", "", 0},
		{req + `{"tmax":50}`, true, "", "", 50},
		{req + `{"tmax":50}}`, false, "", "", 0},
		// walked objects: a null ends one, a null key or an empty key without a value ends one, a value after an end is an error.
		{req + `,"device":{"geo":{"city":"x"} null,"tmax":50}`, false, "", "", 0},
		{req + `,"device":{"geo":{"city":"x"}} null`, false, "", "", 0},
		{req + `,"site":{"page":"http://a.example/" null,"tmax":50}`, true, "", "", 50},
		{req + `,"site":{"page":"http://a.example/",null:2}}`, false, "", "", 0},
		{req + `,"site":{"page":"http://a.example/",null:},"tmax":50}`, false, "", "", 0},
		{req + `,"site":{"page":"http://a.example/",null:}`, true, "", "", 0},
		{req + `,"site":{"":},"tmax":50}`, false, "", "", 0},
		{req + `,"site":{"":}`, true, "", "", 0},
		{req + `,"site":{"":,"tmax":50}`, true, "", "", 50},
		{req + `,"site":{"":"x","page":"http://a.example/"}}`, true, "", "", 0},
		{req + `,"site":{"" : 1 , "":2}}`, true, "", "", 0},
		// skipped objects take null keys after the first.
		{req + `,"x":{"a":1,null:2}}`, true, "", "", 0},
		{req + `,"x":{null:2}}`, false, "", "", 0},
		// arrays: in a walked one '[' reads as ',' and null ends it.
		{req + `,"x":[1 2]}`, false, "", "", 0},
		{req + `,"bcat":["a" "b"]}`, false, "", "", 0},
		{req + `,"bcat":["a" ["b"]}`, true, "", "", 0},
		{req + `,"bcat":["a" null,"tmax":50}`, true, "", "", 50},
		{req + `,"bcat":["a",]}`, false, "", "", 0},
		{req + `,"bcat":[,"a"]}`, false, "", "", 0},
		{`{"id":"a","imp":[{"id":"1"} {"id":"2"}]}`, false, "", "", 0},
		{`{"id":"a","imp":[{"id":"1"} ["x"]]}`, false, "", "", 0},
		{`{"id":"a","imp":[{"id":"1"} null,"tmax":50}`, false, "", "", 0},
		// keys: escapes resolved, the last value of a repeated key counts.
		{`{"\u0069d":"a","imp":[{"id":"1"}]}`, true, "", "", 0},
		{`{"i\d":"a","imp":[{"id":"1"}]}`, false, "", "", 0},
		{`{"id":"a","id":"b","imp":[{"id":"1"}]}`, true, "", "", 0},
		{`{"id":"a","id":null,"imp":[{"id":"1"}]}`, true, "missing_field id", "", 0},
		{`{"id":"a","id":5,"imp":[{"id":"1"}]}`, true, "invalid_field id", "", 0},
		// numbers, as json-iterator's Skip read them (not quite JSON).
		{req + `,"x":-.5}`, true, "", "", 0},
		{req + `,"x":-.5e3}`, true, "", "", 0},
		{req + `,"x":-01}`, true, "", "", 0},
		{req + `,"x":-01e1}`, true, "", "", 0},
		{req + `,"x":01}`, false, "", "", 0},
		{req + `,"x":-0}`, true, "", "", 0},
		{req + `,"x":-}`, false, "", "", 0},
		{req + `,"x":--1}`, false, "", "", 0},
		{req + `,"x":1.}`, false, "", "", 0},
		{req + `,"x":1.e5}`, false, "", "", 0},
		{req + `,"x":1e5}`, true, "", "", 0},
		{req + `,"x":1E+5}`, true, "", "", 0},
		{req + `,"x":1e}`, false, "", "", 0},
		{req + `,"x":1e400}`, false, "", "", 0},
		{req + `,"x":-1e400}`, false, "", "", 0},
		{req + `,"x":1e-400}`, true, "", "", 0},
		{req + `,"x":0.5e39}`, false, "", "", 0},
		{req + `,"x":0.5e38}`, true, "", "", 0},
		{req + `,"x":0e400}`, true, "", "", 0},
		{req + `,"x":5e-400}`, true, "", "", 0},
		{req + `,"x":0.}`, false, "", "", 0},
		{req + `,"x":0.1.2}`, false, "", "", 0},
		{req + `,"x":1.2.3}`, false, "", "", 0},
		{req + `,"x":1..2}`, false, "", "", 0},
		{req + `,"x":1-2}`, false, "", "", 0},
		{req + `,"x":1+2}`, false, "", "", 0},
		{req + ",\"x\":5\r}", true, "", "", 0},
		{req + `,"x":5:}`, false, "", "", 0},
		{req + `,"x":-.5x}`, false, "", "", 0},
		{req + `,"x":tru}`, false, "", "", 0},
		{req + `,"x":nul}`, false, "", "", 0},
		{req + `,"x":falsey}`, false, "", "", 0},
		// numbers in used fields.
		{req + `,"tmax":-.5}`, true, "", "", 0},
		{req + `,"tmax":-01}`, true, "", "", 0},
		{req + `,"tmax":1e2}`, true, "", "", 0},
		{req + `,"tmax":050}`, false, "", "", 0},
		{req + `,"device":{"devicetype":-01}}`, true, "", "", 0},
		// strings: escapes and halves of surrogate pairs; control characters only after an escape.
		{req + `,"device":{"geo":{"city":"\ud800x"}}}`, true, "", "\ufffdx", 0},
		{req + `,"device":{"geo":{"city":"\udc00\ud800"}}}`, true, "", "\ufffd\ufffd", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\ude00"}}}`, true, "", "😀", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\n"}}}`, true, "", "\ufffd\n", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\u0041"}}}`, true, "", "\ufffdA", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\ud83d\ude00"}}}`, true, "", "\ufffd\ufffd\ufffd", 0},
		{req + `,"device":{"geo":{"city":"\ud83d\x"}}}`, false, "", "", 0},
		{req + `,"device":{"geo":{"city":"\ud83d"}}}`, true, "", "\ufffd", 0},
		{req + `,"device":{"geo":{"city":"\u00e9\u0000\/"}}}`, true, "", "é\x00/", 0},
		{req + ",\"device\":{\"geo\":{\"city\":\"a\\n\x01\x1fb\"}}}", true, "", "a\n\x01\x1fb", 0},
		{req + ",\"device\":{\"geo\":{\"city\":\"\x01\"}}}", false, "", "", 0},
		{req + ",\"device\":{\"geo\":{\"city\":\"\xff\xfe\"}}}", true, "", "\xff\xfe", 0},
		{req + `,"device":{"geo":{"city":"\u12"}}}`, false, "", "", 0},
		{req + `,"device":{"geo":{"city":"\U0041"}}}`, false, "", "", 0},
		{req + ",\"x\":\"\\n\x01\"}", true, "", "", 0},
		{req + ",\"x\":\"\x01\\n\"}", false, "", "", 0},
		{req + ",\"x\":{\"\\n\x01\":1}}", true, "", "", 0},
		{req + ",\"x\":{\"\x01\":1}}", false, "", "", 0},
		// syntax errors, blanks, values of the wrong kind.
		{req + `,"x":{"a" 1}}`, false, "", "", 0},
		{req + `,"x":{"a":1 "b":2}}`, false, "", "", 0},
		{req + `,"x":{"a":1,}}`, false, "", "", 0},
		{req + `,"x":{,}}`, false, "", "", 0},
		{req + `,"x":[1,]}`, false, "", "", 0},
		{req + `,"x":[,]}`, false, "", "", 0},
		{req + `,"x":[]}`, true, "", "", 0},
		{req + `,"x":{}}`, true, "", "", 0},
		{req + `,"x":null}`, true, "", "", 0},
		{req + `,"x":}`, false, "", "", 0},
		{req + `,"x" 1}`, false, "", "", 0},
		{req + `,:1}`, false, "", "", 0},
		{req + `,1:1}`, false, "", "", 0},
		{req + `,"tmax" : 50 , "test" : 1 }`, true, "", "", 50},
		{"\t\r\n {\"id\":\"a\",\"imp\":[{\"id\":\"1\",\"banner\":{\"w\":300,\"h\":250}}]}\t\r\n ", true, "", "", 0},
		{req + `,"site":"x"}`, true, "", "", 0},
		{req + `,"site":[1,{"a":"b"}]}`, true, "", "", 0},
	}
	for _, tt := range tests {
		st := new(openrtbState)
		ferr, ok := decodeBidRequest([]byte(tt.body), st)
		if !assert.Equal(t, tt.jsonOK, ok, "%q", tt.body) || !ok {
			continue
		}
		got := ""
		if ferr != nil {
			got = ferr.code + " " + ferr.field
		}
		assert.Equal(t, tt.ferr, got, "%q", tt.body)
		assert.Equal(t, tt.city, st.req.city, "%q", tt.body)
		assert.Equal(t, tt.tmax, st.req.tmax, "%q", tt.body)
	}
}
