package abrate

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
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

// problems collects the problems validate finds, in the order found.
type problems []error

// bad adds problems, each named by where it is ("" for nothing).
type bad func(format string, args ...any)

// at is the bad of the part of the description named where.
func (ps *problems) at(where string) bad {
	return func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if where != "" {
			msg = where + ": " + msg
		}
		*ps = append(*ps, errors.New(msg))
	}
}

// unique names an empty name (field: "name", "key") or one seen before
// among the description's things of that kind, and marks it seen.
func (b bad) unique(seen map[string]bool, name, kind, field string) {
	switch {
	case name == "":
		b("no %s", field)
	case seen[name]:
		b("a second %s of that %s", kind, field)
	}
	seen[name] = true
}

// varName tells whether name, in field, can name a variable, and names
// the problem when it cannot.
func (b bad) varName(field, name string) bool {
	if !identRE.MatchString(name) {
		b("%s: %q is not a variable name (lower-case letters, digits and _)", field, name)
		return false
	}
	return true
}

// driver names a driver that is none of driverNames.
func (b bad) driver(name string) {
	if !slices.Contains(driverNames, name) {
		b("driver %q: no such driver (%s)", name, strings.Join(driverNames, ", "))
	}
}

// validate checks the structure of d, naming every problem it finds.
func (d *Description) validate() error {
	var ps problems
	bad := ps.at("")
	if _, ok := d.Vars["rounds"]; !ok {
		bad("vars: rounds is missing (the number of rounds, e.g. \"rounds\": \"3\")")
	}
	for _, name := range sortedKeys(d.Vars) {
		if bad.varName("vars", name) && slices.Contains(builtinVars, name) {
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
	d.validateServers(&ps)
	d.validatePhases(&ps)
	d.validateCharts(&ps)
	if len(d.Table) == 0 {
		bad("table: no lines")
	}
	return errors.Join(ps...)
}

func (d *Description) validateServers(ps *problems) {
	if len(d.Servers) == 0 {
		ps.at("servers")("none")
	}
	seen := map[string]bool{}
	for i, s := range d.Servers {
		bad := ps.at(fmt.Sprintf("servers[%d] %q", i, s.Name))
		bad.unique(seen, s.Name, "server", "name")
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
}

func (d *Description) validatePhases(ps *problems) {
	if len(d.Phases) == 0 {
		ps.at("phases")("none")
	}
	phases, keys := map[string]bool{}, map[string]bool{}
	names := map[string]bool{} // the variables so far
	for _, v := range append(sortedKeys(d.Vars), builtinVars...) {
		names[v] = true
	}
	for i := range d.Phases {
		p := &d.Phases[i]
		at := fmt.Sprintf("phases[%d] %q", i, p.Name)
		bad := ps.at(at)
		bad.unique(phases, p.Name, "phase", "name")
		for _, name := range sortedKeys(p.Set) {
			if bad.varName("set", name) && names[name] {
				bad("set: %q is already a variable", name)
			}
			names[name] = true
		}
		if p.Driver != "" {
			bad.driver(p.Driver)
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
			bad := ps.at(fmt.Sprintf("%s, runs[%d] %q", at, j, r.Key))
			bad.unique(keys, r.Key, "run", "key")
			if drv := p.driver(j); drv == "" {
				bad("no driver (set the phase's or the run's: %s)", strings.Join(driverNames, ", "))
			} else {
				bad.driver(drv)
			}
			if r.URL == "" {
				bad("no url")
			}
			if r.Server != "" && !slices.ContainsFunc(d.Servers, func(s Server) bool { return s.Name == r.Server }) {
				bad("server %q: no such server", r.Server)
			}
		}
	}
}

// plainName tells whether name is a file name without a directory.
func plainName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
