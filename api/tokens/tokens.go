// Package tokens is the management API's and the console's bearer tokens
// (dspd -api-tokens FILE): who may read and who may change the campaign
// set. The file lists named tokens with a role; a token is found in
// constant time, whatever it is compared with.
package tokens

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"

	"github.com/recbid/dspd/internal/bounded"
	"github.com/recbid/dspd/internal/problems"
)

// Role is what a token may do.
type Role string

// The roles.
const (
	Read  Role = "read"  // list, get, stats, audit, export, the console's pages
	Write Role = "write" // and every change
)

// Allows reports whether the role may do what needs role need.
func (r Role) Allows(need Role) bool { return r == Write || need == Read }

// Token is a token's holder: its name (written in the audit) and role.
type Token struct {
	Name string
	Role Role
}

// MinBytes is the shortest token accepted, MaxFileBytes the largest file.
const (
	MinBytes     = 32
	MaxFileBytes = 1 << 20
)

// ErrInvalid is the cause of every error that rejects a tokens file.
var ErrInvalid = errors.New("invalid tokens file")

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// Set is one tokens file's tokens.
type Set struct {
	entries []entry
}

type entry struct {
	Token
	sum [sha256.Size]byte // of the token: compared in constant time, whatever its length
}

// Parse reads a tokens file's text: {"tokens":[{"name":"ops","token":"…",
// "role":"write"}, …]}. Every problem is named at once: a name that is not
// 1–64 letters, digits or ._@- or is taken twice, a token shorter than
// MinBytes or with a character that is not printable ASCII or is a space,
// a token listed twice, a role other than read or write, an unknown field.
func Parse(data []byte) (*Set, error) {
	var f struct {
		Tokens *[]struct {
			Name  string `json:"name"`
			Token string `json:"token"`
			Role  Role   `json:"role"`
		} `json:"tokens"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, problems.New(ErrInvalid, "not a tokens file: "+err.Error())
	}
	if f.Tokens == nil {
		return nil, problems.New(ErrInvalid, `no "tokens" list`)
	}
	var probs []string
	set := &Set{}
	names, sums := map[string]bool{}, map[[sha256.Size]byte]bool{}
	for i, t := range *f.Tokens {
		at := fmt.Sprintf("tokens[%d]", i)
		if !nameRE.MatchString(t.Name) {
			probs = append(probs, at+".name: must be 1–64 letters, digits or ._@- (it is written in the audit)")
		} else if names[t.Name] {
			probs = append(probs, at+".name: "+t.Name+" is taken by an earlier token")
		}
		names[t.Name] = true
		if len(t.Token) < MinBytes || !printable(t.Token) {
			probs = append(probs, fmt.Sprintf("%s.token: must be at least %d printable ASCII characters, without spaces", at, MinBytes))
		}
		sum := sha256.Sum256([]byte(t.Token))
		if sums[sum] {
			probs = append(probs, at+".token: the same token as an earlier one")
		}
		sums[sum] = true
		if t.Role != Read && t.Role != Write {
			probs = append(probs, at+`.role: must be "read" or "write"`)
		}
		set.entries = append(set.entries, entry{Token: Token{Name: t.Name, Role: t.Role}, sum: sum})
	}
	if len(probs) > 0 {
		return nil, problems.New(ErrInvalid, probs...)
	}
	return set, nil
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// Load reads a tokens file (at most MaxFileBytes).
func Load(path string) (*Set, error) {
	data, err := bounded.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("tokens %s: %w", path, err)
	}
	set, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("tokens %s: %w", path, err)
	}
	return set, nil
}

// Find returns the holder of a token. It compares the token's hash with
// every entry's, without stopping at a match, so that its time tells
// nothing of which token matched or how much of one.
func (s *Set) Find(token string) (Token, bool) {
	if s == nil {
		return Token{}, false
	}
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range s.entries {
		if subtle.ConstantTimeCompare(sum[:], s.entries[i].sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Token{}, false
	}
	return s.entries[found].Token, true
}

// Len returns the number of tokens.
func (s *Set) Len() int { return len(s.entries) }

// File is a tokens file and its current set, reloaded in place.
type File struct {
	path string
	cur  atomic.Pointer[Set]
}

// Open loads a tokens file.
func Open(path string) (*File, error) {
	f := &File{path: path}
	return f, f.Reload()
}

// Reload reads the file again; on an error the old set stays.
func (f *File) Reload() error {
	set, err := Load(f.path)
	if err != nil {
		return err
	}
	f.cur.Store(set)
	return nil
}

// Find returns the holder of a token in the current set.
func (f *File) Find(token string) (Token, bool) { return f.cur.Load().Find(token) }

// Path is the file's path.
func (f *File) Path() string { return f.path }
