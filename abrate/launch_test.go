package abrate

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answering is a server that answers GET / with 200, POST / of "x" with
// 200, and everything else with 503.
func answering(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/":
		case r.Method == http.MethodPost && r.URL.Path == "/" && string(body) == "x":
		case r.Method == http.MethodPost && r.URL.Path == "/bid" && r.Header.Get("Content-Type") == "form":
			_, _ = w.Write(append([]byte("answer to "), body...))
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestWaitReady(t *testing.T) {
	srv := answering(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := closed.Addr().String()
	closed.Close()
	exited := make(chan struct{})
	close(exited)

	for _, tc := range []struct {
		name    string
		ready   Ready
		exited  chan struct{}
		wantErr string
	}{
		{"GET answers 200", Ready{URL: srv.URL + "/"}, nil, ""},
		{"POST of its body answers 200", Ready{URL: srv.URL + "/", Post: "x"}, nil, ""},
		{"TCP accepts", Ready{TCP: ln.Addr().String()}, nil, ""},
		{"503 until the time is out", Ready{URL: srv.URL + "/readyz"}, nil, "not ready within 1ms: GET " + srv.URL + "/readyz: 503 Service Unavailable"},
		{"the process exits", Ready{TCP: closedAddr}, exited, "exited before it was ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			timeout := 10 * time.Second
			if tc.wantErr != "" && tc.exited == nil {
				timeout = time.Millisecond
			}
			err := waitReady(context.Background(), tc.ready, timeout, tc.exited)
			if tc.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tc.wantErr)
			}
		})
	}
}

func TestCapture(t *testing.T) {
	srv := answering(t)
	dir := t.TempDir()
	body := filepath.Join(dir, "post.data")
	require.NoError(t, os.WriteFile(body, []byte("id=1"), 0o644))
	to := filepath.Join(dir, "response.json")
	require.NoError(t, capture(context.Background(), Capture{URL: srv.URL + "/bid", Body: body, Type: "form", To: to}))
	b, err := os.ReadFile(to)
	require.NoError(t, err)
	assert.Equal(t, "answer to id=1", string(b))

	err = capture(context.Background(), Capture{URL: srv.URL + "/bid", Body: body, Type: "json", To: to})
	assert.EqualError(t, err, "capture: POST "+srv.URL+"/bid: 503 Service Unavailable")
	err = capture(context.Background(), Capture{URL: srv.URL + "/bid", Body: filepath.Join(dir, "none"), To: to})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestProcessesLaunch starts real processes (no load): one that serves
// nothing but is ready by its check, one that exits at once.
func TestProcessesLaunch(t *testing.T) {
	srv := answering(t)
	dir := t.TempDir()
	l := Processes{ReadyTimeout: 10 * time.Second}

	p, err := l.Launch(context.Background(), ServerSpec{Name: "sleeper", Argv: []string{"sleep", "60"}, CPUs: "0",
		Ready: Ready{URL: srv.URL + "/"}, LogPath: filepath.Join(dir, "sleeper.log")})
	require.NoError(t, err)
	_, err = p.CPUTime()
	assert.NoError(t, err)
	assert.Error(t, p.Stop(), "killed by SIGTERM")

	_, err = l.Launch(context.Background(), ServerSpec{Name: "quitter", Argv: []string{"sh", "-c", "echo no campaigns; exit 3"},
		CPUs: "0", Ready: Ready{URL: srv.URL + "/readyz"}, LogPath: filepath.Join(dir, "quitter.log")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before it was ready; its output:\nno campaigns")
}

func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	require.NoError(t, os.WriteFile(path, []byte("1\n2\n3\n"), 0o644))
	assert.Equal(t, "2\n3", tail(path, 2))
	assert.Equal(t, "1\n2\n3", tail(path, 20))
	assert.Contains(t, tail(filepath.Join(t.TempDir(), "none"), 2), "no such file")
}
