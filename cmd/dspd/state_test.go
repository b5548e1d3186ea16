package main

import (
	"log/slog"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunRefusesAnUnusableState(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	ln.Close()
	for _, state := range []string{"mysql://x", "redis://" + closed + "/0", "redis://%zz"} {
		cfg := testConfig(t)
		cfg.state = state
		err := run(t.Context(), cfg, slog.New(slog.DiscardHandler), nil, hooks{
			listening: func(net.Addr, net.Addr) { t.Errorf("listened with -state %s", state) },
		})
		assert.ErrorContains(t, err, "state", state)
	}
}
