package conntest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OptionsAsteriskKeepsTheRules sends OPTIONS * (a question about the server
// itself, RFC 9110 section 9.3.7) to addr twice: on a connection that asks
// to be closed after it, which the server must answer 200 with Connection:
// close and then close, and on a keep-alive connection, which must then
// answer a valid bid request (bid). The answer from the head is held to the
// same connection rules as any other.
func OptionsAsteriskKeepsTheRules(t *testing.T, addr, bid string) {
	t.Helper()
	for _, closing := range []bool{true, false} {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
		head := "OPTIONS * HTTP/1.1\r\nHost: x\r\n"
		if closing {
			head += "Connection: close\r\n"
		}
		// The bid request follows at once (pipelined): a server that closes
		// must not answer it.
		_, err = io.WriteString(conn, head+"\r\n"+bidRequest(bid))
		require.NoError(t, err)
		rd := bufio.NewReader(conn)
		first, err := http.ReadResponse(rd, nil)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, first.Body)
		assert.Equal(t, http.StatusOK, first.StatusCode)
		assert.Equal(t, closing, first.Close, "closing %v: Connection: close on the answer", closing)
		next, err := http.ReadResponse(rd, nil)
		if closing {
			assert.Error(t, err, "the connection asked to close answered a request after OPTIONS *")
		} else if assert.NoError(t, err, "the kept connection lost the request after OPTIONS *") {
			_, _ = io.Copy(io.Discard, next.Body)
			assert.Contains(t, []int{http.StatusOK, http.StatusNoContent}, next.StatusCode)
		}
		conn.Close()
	}
}
