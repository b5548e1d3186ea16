package api

import (
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseForm(t *testing.T) {
	tests := []struct {
		name string
		body string
		want map[formKey]string // the values the bidder reads
		bad  bool
	}{
		{name: "simple", body: "id=a&w=300", want: map[formKey]string{keyID: "a", keyW: "300"}},
		{name: "plus is a space", body: "city=New+York", want: map[formKey]string{keyCity: "New York"}},
		{name: "percent escapes", body: "cat=IAB12%2CIAB12-1&city=S%C3%A3o+Paulo", want: map[formKey]string{keyCat: "IAB12,IAB12-1", keyCity: "São Paulo"}},
		{name: "escaped plus stays", body: "uid=a%2Bb", want: map[formKey]string{keyUID: "a+b"}},
		{name: "lowercase hex", body: "uid=%2f%2F", want: map[formKey]string{keyUID: "//"}},
		{name: "escaped key", body: "%69d=x", want: map[formKey]string{keyID: "x"}},
		{name: "first value counts", body: "id=a&id=b", want: map[formKey]string{keyID: "a"}},
		{name: "empty value is absent", body: "id=&id=b", want: map[formKey]string{keyID: "b"}},
		{name: "key without =", body: "id&w=1", want: map[formKey]string{keyW: "1"}},
		{name: "empty pairs", body: "&&id=a&&", want: map[formKey]string{keyID: "a"}},
		{name: "unknown keys ignored", body: "ua=Mozilla%2F5.0+(X11)&id=a", want: map[formKey]string{keyID: "a"}},
		{name: "= in value", body: "id=a=b", want: map[formKey]string{keyID: "a=b"}},
		{name: "keys are case sensitive", body: "ID=a", want: map[formKey]string{}},
		{name: "empty body", body: "", want: map[formKey]string{}},
		{name: "raw UTF-8 passes", body: "city=São", want: map[formKey]string{keyCity: "São"}},
		{name: "lone percent", body: "id=a%", bad: true},
		{name: "one hex digit", body: "id=a%4", bad: true},
		{name: "not hex", body: "id=%zz", bad: true},
		{name: "bad escape in an ignored key", body: "id=a&ua=50%", bad: true},
		{name: "bad escape in a key", body: "i%g=a", bad: true},
		{name: "percent then space", body: "id=% 1", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f form
			err := parseForm([]byte(tt.body), &f)
			if tt.bad {
				assert.ErrorIs(t, err, errBadEncoding)
				return
			}
			require.NoError(t, err)
			got := map[formKey]string{}
			for k, v := range f.vals {
				if v != nil {
					got[formKey(k)] = string(v)
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParseForm checks that the parser never panics and that, on bodies
// net/url also accepts, it reads the same first non-empty values.
func FuzzParseForm(f *testing.F) {
	post, err := os.ReadFile("../testdata/post.data")
	require.NoError(f, err)
	for _, s := range []string{"id=a&w=300&h=250", "city=S%C3%A3o+Paulo", "a%", "%zz", "&&=&", "id=&id=x", string(post)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var fm form
		err := parseForm([]byte(body), &fm)
		std, stdErr := url.ParseQuery(body)
		if err != nil {
			return
		}
		if stdErr != nil {
			return // net/url rejects ';' separators, which we treat as data
		}
		for k := range numKeys {
			var want []byte
			for _, v := range std[keyNames[k]] {
				if v != "" {
					want = []byte(v)
					break
				}
			}
			if string(want) != string(fm.vals[k]) || (want == nil) != (fm.vals[k] == nil) {
				t.Fatalf("key %s: got %q, net/url %q", keyNames[k], fm.vals[k], want)
			}
		}
	})
}
