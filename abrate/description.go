package abrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Description is one A/B measurement, as a JSON file declares it. The
// strings of its files, servers, phases (but their names, drivers and run
// keys) and table are templates (see the package comment); the defaults
// of its vars, its needs and its build are not.
type Description struct {
	Name string `json:"-"` // the file's base name without .json

	Doc string `json:"doc"` // what it measures, for people
	// Vars are the variables the command line may set (NAME=VALUE), with
	// their defaults; rounds, the number of rounds, is required.
	Vars  map[string]string `json:"vars"`
	Needs []Need            `json:"needs"` // commands to install from Debian when missing
	Build []string          `json:"build"` // binaries of ./cmd/NAME the servers and drivers use, in {{.bin}}
	// Files are written into {{.tmp}} before the servers start, by name:
	// a JSON string is the file's text, any other JSON value is written
	// as it stands (a JSON file inline).
	Files   map[string]json.RawMessage `json:"files"`
	Servers []Server                   `json:"servers"` // started in order, each ready before the next starts
	Phases  []Phase                    `json:"phases"`  // run in order
	Table   []string                   `json:"table"`   // the lines printed on standard output at the end
	Charts  []Chart                    `json:"charts"`  // drawn after the table
}

// Need is a command a measurement runs, and the Debian package that has it.
type Need struct {
	Command string `json:"command"`
	Package string `json:"package"`
}

// Server is a process to measure, or one the measured servers need.
type Server struct {
	Name    string   `json:"name"`
	Command string   `json:"command"` // {{.bin}}/dspd, redis-server
	Args    []string `json:"args"`
	Env     []string `json:"env"` // NAME=VALUE added to the environment
	// CPUs are the roles of the CPUs it is pinned to: "server" (the
	// default) and "load", the load driver's.
	CPUs    []string `json:"cpus"`
	Ready   Ready    `json:"ready"`
	Capture *Capture `json:"capture"` // an answer to keep once it is ready
}

// Ready says when a server is ready: URL answers 2xx to a GET (to a POST
// of Post when Post is set), or TCP accepts a connection.
type Ready struct {
	URL  string `json:"url"`
	Post string `json:"post"`
	TCP  string `json:"tcp"`
}

// Capture POSTs a file to a ready server and keeps the answer's body in
// {{.tmp}}/To, for the servers started after it.
type Capture struct {
	URL  string `json:"url"`
	Body string `json:"body"` // the file sent
	Type string `json:"type"` // its Content-Type
	To   string `json:"to"`
}

// Phase is a kind of load: its runs take turns, round after round.
type Phase struct {
	Name string `json:"name"`
	// Set names values computed before the phase starts from the medians
	// of the phases before it, as variables of the phase and after.
	Set    map[string]string `json:"set"`
	Driver string            `json:"driver"` // the runs' driver unless a run names its own
	Args   []string          `json:"args"`   // the driver's arguments, before each run's own
	Warmup *Warmup           `json:"warmup"` // nil: no warm-up
	Runs   []Run             `json:"runs"`
}

// Warmup runs every run of the phase once, unmeasured, before the rounds,
// with Vars (e.g. a shorter duration) over the variables.
type Warmup struct {
	Vars map[string]string `json:"vars"`
}

// Run is one load against one URL, measured each round.
type Run struct {
	Key    string   `json:"key"`    // names its figures in the templates; unique in the description
	Driver string   `json:"driver"` // wrk or loadgen; the phase's when empty
	Args   []string `json:"args"`   // after the phase's
	URL    string   `json:"url"`
	// Server names the server whose CPU time per request the run measures
	// (the cpu function); none when empty.
	Server string `json:"server"`
	// Progress is a line printed on standard error after the run, each
	// round, with that round's figures.
	Progress string `json:"progress"`
}

// driverNames are the load drivers a run can use.
var driverNames = []string{"wrk", "loadgen"}

// Load reads and checks the description in a JSON file; its name is the
// file's base name.
func Load(path string) (*Description, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("description: %w", err)
	}
	defer f.Close()
	d, err := Parse(f, strings.TrimSuffix(filepath.Base(path), ".json"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Parse reads a description from JSON and checks its structure (Check
// checks the rest): unknown fields, missing names and references to
// servers or runs that do not exist are errors.
func Parse(r io.Reader, name string) (*Description, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	d := &Description{}
	if err := dec.Decode(d); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("JSON: more than one value")
	}
	d.Name = name
	if err := d.validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// driver is the driver of run i of phase p.
func (p *Phase) driver(i int) string {
	if d := p.Runs[i].Driver; d != "" {
		return d
	}
	return p.Driver
}

// file is the text of file name, before its templates are expanded.
func (d *Description) file(name string) (string, error) {
	raw := d.Files[name]
	if len(raw) > 0 && raw[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", fmt.Errorf("files %q: %w", name, err)
		}
		return text, nil
	}
	return string(raw) + "\n", nil
}
