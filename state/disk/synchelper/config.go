package synchelper

import (
	"log/slog"
	"time"
)

// Config configures Start; zero fields take the defaults.
type Config struct {
	// Path is the program started as the helper: a binary whose main calls
	// ServeIfHelper before anything else. The default is this process's
	// own binary, as /proc/self/exe names it (still this binary when its
	// file has been replaced on disk since).
	Path string
	// StartTimeout bounds the wait for the helper's first answer (default
	// 10 s); a program that does not answer is killed.
	StartTimeout time.Duration
	// StopTimeout bounds Close's wait for the helper to exit (default
	// 10 s); past it, the helper is killed.
	StopTimeout time.Duration
	// Logger receives the line that says the helper was lost (default
	// slog's).
	Logger *slog.Logger
	// OnLost, when set, is called once when the helper is lost (not when
	// Close stops it): every sync is done in-process from then on.
	OnLost func(error)

	testOps bool // the helper answers the tests' requests (wire.go)
}

// DefaultPath is the helper's program by default: this process's binary.
const DefaultPath = "/proc/self/exe"

func (c Config) withDefaults() Config {
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 10 * time.Second
	}
	if c.StopTimeout <= 0 {
		c.StopTimeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
