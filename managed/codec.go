package managed

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
)

// EncodeDoc is a document as the stores keep it: "VERSION AT_MS BY\n"
// and the JSON (none for a tombstone). The version leads, so that a
// store's script can compare it without parsing JSON. BY, the rest of the
// first line, has no newline (Service refuses one).
func EncodeDoc(d Doc) []byte {
	b := make([]byte, 0, len(d.JSON)+48)
	b = strconv.AppendInt(b, d.Version, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, d.At.UnixMilli(), 10)
	b = append(b, ' ')
	b = append(b, d.By...)
	b = append(b, '\n')
	return append(b, d.JSON...)
}

// DecodeDoc reads a document EncodeDoc wrote, of the campaign id.
func DecodeDoc(id string, b []byte) (Doc, error) {
	head, body, ok := bytes.Cut(b, []byte{'\n'})
	f := bytes.SplitN(head, []byte{' '}, 3)
	if !ok || len(f) != 3 {
		return Doc{}, fmt.Errorf("managed: campaign %q: malformed stored document", id)
	}
	v, err1 := strconv.ParseInt(string(f[0]), 10, 64)
	at, err2 := strconv.ParseInt(string(f[1]), 10, 64)
	if err1 != nil || err2 != nil || v < 1 {
		return Doc{}, fmt.Errorf("managed: campaign %q: malformed stored version or time", id)
	}
	d := Doc{ID: id, Version: v, At: time.UnixMilli(at).UTC(), By: string(f[2])}
	if len(body) > 0 {
		d.JSON = bytes.Clone(body)
	}
	return d, nil
}

// CheckCommit checks a commit's shape (CheckShape), then its changes
// against the versions a store holds (have returns a campaign's, 0 for
// none).
func CheckCommit(c Commit, have func(id string) int64) error {
	if err := CheckShape(c); err != nil {
		return err
	}
	for _, ch := range c.Changes {
		if v := have(ch.Doc.ID); v != ch.Prev {
			return &ConflictError{ID: ch.Doc.ID, Have: v}
		}
	}
	return nil
}

// CheckShape checks that each change of a commit is one version after its
// Prev, and that no campaign has two.
func CheckShape(c Commit) error {
	seen := make(map[string]bool, len(c.Changes))
	for _, ch := range c.Changes {
		if ch.Doc.Version != ch.Prev+1 || ch.Doc.ID == "" || seen[ch.Doc.ID] {
			return fmt.Errorf("managed: malformed commit (campaign %q, version %d after %d)", ch.Doc.ID, ch.Doc.Version, ch.Prev)
		}
		seen[ch.Doc.ID] = true
	}
	return nil
}
