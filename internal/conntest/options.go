package conntest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OptionsAsteriskKeepsTheRules sends OPTIONS * (a question about the server
// itself, RFC 9110 section 9.3.7) to addr three times: on a connection that
// asks to be closed after it, which the server must answer 200 with
// Connection: close and then close; on a keep-alive connection, which must
// then answer a valid bid request (bid); and with a body declared over the
// contract's limit (sent whole), after which the server either closes or
// answers the bid request, but never reads the body as a request of its own
// (a stray 431 or 400 on a kept connection is a client's next answer). The
// answer from the head is held to the same connection rules as any other.
func OptionsAsteriskKeepsTheRules(t *testing.T, addr, bid string) {
	t.Helper()
	for _, tc := range []struct {
		name    string
		closing bool
		body    int // declared and sent
	}{{"closing", true, 0}, {"kept", false, 0}, {"kept, body over the limit", false, 100_000}} {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
		head := "OPTIONS * HTTP/1.1\r\nHost: x\r\n"
		if tc.closing {
			head += "Connection: close\r\n"
		}
		if tc.body > 0 {
			head += fmt.Sprintf("Content-Length: %d\r\n", tc.body)
		}
		// The bid request follows at once (pipelined): a server that closes
		// must not answer it. Written aside: a server that closes without
		// reading the body may leave the write failing, which is its right.
		go func() {
			_, _ = io.WriteString(conn, head+"\r\n"+strings.Repeat("x", tc.body)+bidRequest(bid))
		}()
		rd := bufio.NewReader(conn)
		first, err := http.ReadResponse(rd, nil)
		require.NoError(t, err, tc.name)
		_, _ = io.Copy(io.Discard, first.Body)
		assert.Equal(t, http.StatusOK, first.StatusCode, tc.name)
		if tc.body == 0 { // with a body unread, closing is the server's choice
			assert.Equal(t, tc.closing, first.Close, "%s: Connection: close on the answer", tc.name)
		}
		next, err := http.ReadResponse(rd, nil)
		switch {
		case tc.closing:
			assert.Error(t, err, "the connection asked to close answered a request after OPTIONS *")
		case tc.body > 0 && first.Close:
			assert.Error(t, err, "%s: the answer said Connection: close, and then another came", tc.name)
		case assert.NoError(t, err, "%s: the kept connection lost the request after OPTIONS *", tc.name):
			_, _ = io.Copy(io.Discard, next.Body)
			assert.Contains(t, []int{http.StatusOK, http.StatusNoContent}, next.StatusCode,
				"%s: the answer after OPTIONS * is the bid request's", tc.name)
		}
		conn.Close()
	}
}
