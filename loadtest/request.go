package loadtest

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// target is where the load goes, parsed from the URL.
type target struct {
	host, port string // port is always set
	path       string // path and query, as sent
	hostHeader string
}

func parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, fmt.Errorf("url %q: %w", raw, err)
	}
	if u.Scheme != "http" {
		return target{}, fmt.Errorf("url %q: only http:// is supported", raw)
	}
	if u.Host == "" {
		return target{}, fmt.Errorf("url %q: no host", raw)
	}
	t := target{host: u.Hostname(), port: u.Port(), path: u.RequestURI(), hostHeader: u.Host}
	if t.port == "" {
		t.port = "80"
	}
	return t, nil
}

func (t target) addr() string { return net.JoinHostPort(t.host, t.port) }

// prepared is one request's bytes, written in a single call.
type prepared struct {
	raw      []byte
	bodySize int
}

// prepare builds the requests of a run: one per body (one without a body
// for a GET).
func prepare(t target, cfg *Config) ([]prepared, error) {
	for _, h := range cfg.Headers {
		name, _, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(h, "\r\n") {
			return nil, fmt.Errorf("header %q: want \"Name: value\"", h)
		}
	}
	bodies := cfg.Bodies
	if len(bodies) == 0 {
		bodies = [][]byte{nil}
	}
	method := cfg.method()
	out := make([]prepared, len(bodies))
	for i, body := range bodies {
		var b strings.Builder
		b.WriteString(method + " " + t.path + " HTTP/1.1\r\n")
		b.WriteString("Host: " + t.hostHeader + "\r\n")
		if !hasHeader(cfg.Headers, "User-Agent") {
			b.WriteString("User-Agent: loadgen\r\n")
		}
		if !hasHeader(cfg.Headers, "Accept") {
			b.WriteString("Accept: */*\r\n")
		}
		if !cfg.KeepAlive {
			b.WriteString("Connection: close\r\n")
		}
		if body != nil {
			if cfg.ContentType != "" {
				b.WriteString("Content-Type: " + cfg.ContentType + "\r\n")
			}
			b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
		}
		for _, h := range cfg.Headers {
			b.WriteString(h + "\r\n")
		}
		b.WriteString("\r\n")
		b.Write(body)
		out[i] = prepared{raw: []byte(b.String()), bodySize: len(body)}
	}
	return out, nil
}

func hasHeader(headers []string, name string) bool {
	for _, h := range headers {
		if n, _, _ := strings.Cut(h, ":"); strings.EqualFold(strings.TrimSpace(n), name) {
			return true
		}
	}
	return false
}
