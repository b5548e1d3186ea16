package abrate

import (
	"context"
	"io"
	"os"
	"runtime"
	"time"
)

// Config is one run of a description.
type Config struct {
	Vars map[string]string // the command line's NAME=VALUE, over the description's defaults

	Bin       string // where the binaries of the description's build are: {{.bin}}
	ServerCPU int    // the CPU of the "server" role: {{.server_cpu}}
	LoadCPU   int    // the CPU of the "load" role, the drivers': {{.load_cpu}}

	Stdout io.Writer // the table
	Stderr io.Writer // progress lines

	// Launcher starts the servers and Driver runs the loads; nil: the
	// real ones (Processes and Pinned), tests give fakes.
	Launcher Launcher
	Driver   Driver
}

// readyTimeout is how long a server of the real Launcher may take to be
// ready.
const readyTimeout = 10 * time.Second

// DefaultConfig returns the settings of the make targets: binaries in
// bin/, the servers on CPU 0, the drivers on CPU 1 (0 too on a machine of
// one CPU).
func DefaultConfig() Config {
	server, load := cpus(runtime.NumCPU())
	return Config{Bin: "bin", ServerCPU: server, LoadCPU: load, Stdout: os.Stdout, Stderr: os.Stderr}
}

// cpus chooses the server's and the load's CPUs on a machine of n: apart
// when there are two or more.
func cpus(n int) (server, load int) {
	if n < 2 {
		return 0, 0
	}
	return 0, 1
}

// fill puts the real launcher and driver, and discarding writers, where
// c has none.
func (c *Config) fill() {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Launcher == nil {
		c.Launcher = Processes{ReadyTimeout: readyTimeout}
	}
	if c.Driver == nil {
		c.Driver = Pinned{Bin: c.Bin, CPU: c.LoadCPU}
	}
}

// Proc is a started server.
type Proc interface {
	CPUTime() (time.Duration, error) // user and system CPU time so far
	Stop() error
}

// ServerSpec is a server to start, its templates expanded.
type ServerSpec struct {
	Name    string
	Argv    []string
	Env     []string
	CPUs    string // taskset's list: "0", "0,1"
	Ready   Ready
	Capture *Capture // To is a path
	LogPath string   // where its output goes
}

// Launcher starts a server and returns once it is ready (and its capture
// kept).
type Launcher interface {
	Launch(ctx context.Context, s ServerSpec) (Proc, error)
}

// Job is one run of a driver, its templates expanded.
type Job struct {
	Driver string // wrk, loadgen
	Args   []string
	URL    string
}

// Driver runs a load and returns what it measured; a load with failed
// requests or non-2xx answers is an error.
type Driver interface {
	Drive(ctx context.Context, j Job) (Sample, error)
}
