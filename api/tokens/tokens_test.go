package tokens_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/recbid/dspd/api/tokens"
	"github.com/recbid/dspd/internal/problems"
)

const (
	opsToken    = "ops-0123456789abcdef0123456789abcdef"
	viewerToken = "viewer-0123456789abcdef0123456789abcd"
)

func TestParseAndFind(t *testing.T) {
	set, err := tokens.Parse([]byte(`{"tokens":[{"name":"ops","token":"` + opsToken + `","role":"write"},
		{"name":"viewer","token":"` + viewerToken + `","role":"read"}]}`))
	require.NoError(t, err)
	for _, tc := range []struct {
		token string
		want  tokens.Token
		ok    bool
	}{
		{opsToken, tokens.Token{Name: "ops", Role: tokens.Write}, true},
		{viewerToken, tokens.Token{Name: "viewer", Role: tokens.Read}, true},
		{opsToken[:len(opsToken)-1], tokens.Token{}, false},
		{opsToken + "x", tokens.Token{}, false},
		{"", tokens.Token{}, false},
		{strings.ToUpper(opsToken), tokens.Token{}, false},
	} {
		got, ok := set.Find(tc.token)
		assert.Equal(t, tc.ok, ok, "%q", tc.token)
		assert.Equal(t, tc.want, got)
	}
	assert.True(t, tokens.Write.Allows(tokens.Write))
	assert.True(t, tokens.Write.Allows(tokens.Read))
	assert.True(t, tokens.Read.Allows(tokens.Read))
	assert.False(t, tokens.Read.Allows(tokens.Write))
	assert.False(t, tokens.Role("admin").Allows(tokens.Write))
}

func TestParseNamesEveryProblem(t *testing.T) {
	_, err := tokens.Parse([]byte(`{"tokens":[
		{"name":"ops","token":"short","role":"write"},
		{"name":"ops","token":"` + opsToken + `","role":"admin"},
		{"name":"bad name","token":"` + opsToken + `","role":"read"},
		{"name":"sp","token":"has a space has a space has a space","role":"read"}]}`))
	var pe *problems.Error
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, tokens.ErrInvalid)
	assert.Equal(t, []string{
		"tokens[0].token: must be at least 32 printable ASCII characters, without spaces",
		"tokens[1].name: ops is taken by an earlier token",
		`tokens[1].role: must be "read" or "write"`,
		"tokens[2].name: must be 1–64 letters, digits or ._@- (it is written in the audit)",
		"tokens[2].token: the same token as an earlier one",
		"tokens[3].token: must be at least 32 printable ASCII characters, without spaces",
	}, pe.Problems)
	for _, bad := range []string{`{}`, `[]`, `{"tokens":[],"extra":1}`, `{"tokens":[{"name":"a","token":"` + opsToken + `","role":"read","x":1}]}`} {
		_, err := tokens.Parse([]byte(bad))
		assert.ErrorIs(t, err, tokens.ErrInvalid, bad)
	}
}

func TestFileReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	write := func(body string) { require.NoError(t, os.WriteFile(path, []byte(body), 0o600)) }
	write(`{"tokens":[{"name":"ops","token":"` + opsToken + `","role":"write"}]}`)
	f, err := tokens.Open(path)
	require.NoError(t, err)
	_, ok := f.Find(opsToken)
	assert.True(t, ok)
	write(`{"tokens":[{"name":"viewer","token":"` + viewerToken + `","role":"read"}]}`)
	require.NoError(t, f.Reload())
	_, ok = f.Find(opsToken)
	assert.False(t, ok, "a token taken out of the file stops working at the reload")
	write(`{"tokens":[`)
	require.Error(t, f.Reload())
	_, ok = f.Find(viewerToken)
	assert.True(t, ok, "a bad file leaves the old tokens in force")
}
