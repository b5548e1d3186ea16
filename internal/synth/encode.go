package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"
)

// WriteCampaigns writes cs as a campaigns file: `{"campaigns":[`, then one
// campaign object per line, comma-separated, then `]}` and a newline, so that
// a committed file diffs line by line. HTML characters are not escaped.
func WriteCampaigns(w io.Writer, cs []Campaign) error {
	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	bw.WriteString("{\"campaigns\":[\n")
	for i := range cs {
		buf.Reset()
		if err := enc.Encode(&cs[i]); err != nil {
			return err
		}
		line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		bw.Write(line)
		if i < len(cs)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// field is one key=value pair of a form body. A field with an empty value is
// left out, unless keepEmpty is set: then it is written as "key=", which the
// contract reads as absent.
type field struct {
	key, value string
	keepEmpty  bool
}

// encodeForm encodes fields in the given order, the way url.Values.Encode
// does one pair (spaces as '+', everything else outside [A-Za-z0-9-_.~] as
// %XX), skipping fields with no value unless they keep it.
func encodeForm(fields []field) string {
	var sb strings.Builder
	for _, f := range fields {
		if f.value == "" && !f.keepEmpty {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('&')
		}
		sb.WriteString(url.QueryEscape(f.key))
		sb.WriteByte('=')
		sb.WriteString(url.QueryEscape(f.value))
	}
	return sb.String()
}
