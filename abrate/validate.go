package abrate

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Variables every description has, set by the runner.
var builtinVars = []string{"bin", "tmp", "server_cpu", "load_cpu", "round"}

// cpuRoles are the roles a server's CPUs can have.
var cpuRoles = []string{"server", "load"}

var (
	identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	cmdRE   = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// validate checks the structure of d, naming every problem it finds.
func (d *Description) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if _, ok := d.Vars["rounds"]; !ok {
		bad("vars: rounds is missing (the number of rounds, e.g. \"rounds\": \"3\")")
	}
	for _, name := range sortedKeys(d.Vars) {
		switch {
		case !identRE.MatchString(name):
			bad("vars: %q is not a variable name (lower-case letters, digits and _)", name)
		case slices.Contains(builtinVars, name):
			bad("vars: %q is set by the runner (%s are)", name, strings.Join(builtinVars, ", "))
		}
	}
	for i, n := range d.Needs {
		if n.Command == "" || n.Package == "" {
			bad("needs[%d]: both command and package are needed", i)
		}
	}
	for _, b := range d.Build {
		if !cmdRE.MatchString(b) {
			bad("build: %q is not the name of a command under ./cmd", b)
		}
	}
	for _, name := range sortedKeys(d.Files) {
		if !plainName(name) {
			bad("files: %q is not a plain file name", name)
		}
	}
	errs = append(errs, d.validateServers()...)
	errs = append(errs, d.validatePhases()...)
	if len(d.Table) == 0 {
		bad("table: no lines")
	}
	return errors.Join(errs...)
}

func (d *Description) validateServers() []error {
	var errs []error
	if len(d.Servers) == 0 {
		errs = append(errs, errors.New("servers: none"))
	}
	seen := map[string]bool{}
	for i, s := range d.Servers {
		at := fmt.Sprintf("servers[%d] %q", i, s.Name)
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
		}
		switch {
		case s.Name == "":
			bad("no name")
		case seen[s.Name]:
			bad("a second server of that name")
		}
		seen[s.Name] = true
		if s.Command == "" {
			bad("no command")
		}
		for j, role := range s.CPUs {
			if !slices.Contains(cpuRoles, role) {
				bad("cpus: %q is no CPU role (%s)", role, strings.Join(cpuRoles, ", "))
			} else if slices.Index(s.CPUs, role) != j {
				bad("cpus: %q twice", role)
			}
		}
		for _, e := range s.Env {
			if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
				bad("env: %q is not NAME=VALUE", e)
			}
		}
		r := s.Ready
		switch {
		case (r.URL == "") == (r.TCP == ""):
			bad("ready: give url or tcp, one of them")
		case r.Post != "" && r.URL == "":
			bad("ready: post goes with url")
		}
		if c := s.Capture; c != nil {
			if c.URL == "" || c.Body == "" || c.To == "" {
				bad("capture: url, body and to are needed")
			} else if !plainName(c.To) {
				bad("capture: to %q is not a plain file name (it goes in {{.tmp}})", c.To)
			}
		}
	}
	return errs
}

func (d *Description) validatePhases() []error {
	var errs []error
	if len(d.Phases) == 0 {
		errs = append(errs, errors.New("phases: none"))
	}
	phases, keys, names := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, v := range append(sortedKeys(d.Vars), builtinVars...) {
		names[v] = true
	}
	for i := range d.Phases {
		p := &d.Phases[i]
		at := fmt.Sprintf("phases[%d] %q", i, p.Name)
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
		}
		switch {
		case p.Name == "":
			bad("no name")
		case phases[p.Name]:
			bad("a second phase of that name")
		}
		phases[p.Name] = true
		for _, name := range sortedKeys(p.Set) {
			switch {
			case !identRE.MatchString(name):
				bad("set: %q is not a variable name (lower-case letters, digits and _)", name)
			case names[name]:
				bad("set: %q is already a variable", name)
			}
			names[name] = true
		}
		if p.Driver != "" && !slices.Contains(driverNames, p.Driver) {
			bad("driver %q: no such driver (%s)", p.Driver, strings.Join(driverNames, ", "))
		}
		if w := p.Warmup; w != nil {
			for _, name := range sortedKeys(w.Vars) {
				if _, ok := d.Vars[name]; !ok {
					bad("warmup: %q is not one of the description's vars", name)
				}
			}
		}
		if len(p.Runs) == 0 {
			bad("no runs")
		}
		for j, r := range p.Runs {
			rat := fmt.Sprintf("%s, runs[%d] %q", at, j, r.Key)
			rbad := func(format string, args ...any) {
				errs = append(errs, fmt.Errorf("%s: %s", rat, fmt.Sprintf(format, args...)))
			}
			switch {
			case r.Key == "":
				rbad("no key")
			case keys[r.Key]:
				rbad("a second run of that key")
			}
			keys[r.Key] = true
			switch drv := p.driver(j); {
			case drv == "":
				rbad("no driver (set the phase's or the run's: %s)", strings.Join(driverNames, ", "))
			case !slices.Contains(driverNames, drv):
				rbad("driver %q: no such driver (%s)", drv, strings.Join(driverNames, ", "))
			}
			if r.URL == "" {
				rbad("no url")
			}
			if r.Server != "" && !slices.ContainsFunc(d.Servers, func(s Server) bool { return s.Name == r.Server }) {
				rbad("server %q: no such server", r.Server)
			}
		}
	}
	return errs
}

// plainName tells whether name is a file name without a directory.
func plainName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
