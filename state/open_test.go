package state

import (
	"errors"
	"log/slog"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		url  string
		kind Kind
	}{
		{"memory", Memory},
		{"disk:" + t.TempDir(), Disk},
	} {
		t.Run(tc.url, func(t *testing.T) {
			st, err := Open(t.Context(), tc.url, Config{Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			assert.Equal(t, tc.kind, st.Kind)
			assert.NotNil(t, st.Ledger)
			assert.NotNil(t, st.Bids)
			assert.NotZero(t, st.HashKey, "a store keeps a user hash key of its own")
			require.NoError(t, st.Close())
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	for _, tc := range []struct {
		url   string
		isURL bool // refused for its form, before anything is opened
	}{
		{"", true}, {"mysql://x", true}, {"memory:x", true}, {"disk:", true}, {"Memory", true},
		{"redis://" + closed + "/0", false}, {"redis://%zz", false},
	} {
		t.Run(tc.url, func(t *testing.T) {
			st, err := Open(t.Context(), tc.url, Config{Logger: slog.New(slog.DiscardHandler)})
			require.Error(t, err)
			assert.Nil(t, st)
			assert.Equal(t, tc.isURL, errorIsURL(err), "%v", err)
		})
	}
}

func errorIsURL(err error) bool { return errors.Is(err, ErrURL) }
