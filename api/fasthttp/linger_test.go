package fasthttp

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLingeringClose: a connection closed with the client's bytes unread
// ends with a FIN after the answer when it lingers, where a plain close is
// a reset (the kernel's answer to unread data) that can cost the answer.
func TestLingeringClose(t *testing.T) {
	for _, tt := range []struct {
		name   string
		linger bool
	}{{"lingering", true}, {"at once", false}} {
		t.Run(tt.name, func(t *testing.T) {
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ln := LingeringListener(inner)
			defer ln.Close()
			client, err := net.Dial("tcp", ln.Addr().String())
			require.NoError(t, err)
			defer client.Close()
			require.NoError(t, client.SetDeadline(time.Now().Add(10*time.Second)))
			server, err := ln.Accept()
			require.NoError(t, err)

			// The client has sent what the server will never read.
			_, err = client.Write(make([]byte, 64<<10))
			require.NoError(t, err)
			got := make([]byte, 1)
			require.NoError(t, server.SetReadDeadline(time.Now().Add(10*time.Second)))
			_, err = io.ReadFull(server, got) // it has arrived
			require.NoError(t, err)

			_, err = server.Write([]byte("answer"))
			require.NoError(t, err)
			server.(*lingerConn).linger.Store(tt.linger)
			require.NoError(t, server.Close())

			answer, err := io.ReadAll(client)
			if tt.linger {
				require.NoError(t, err, "a lingering close ends with a FIN")
				assert.Equal(t, "answer", string(answer))
			} else {
				assert.ErrorContains(t, err, "reset", "a plain close with unread bytes is a reset")
			}
		})
	}
}
