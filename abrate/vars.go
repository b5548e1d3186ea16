package abrate

import (
	"fmt"
	"strconv"
	"strings"
)

// resolve merges the command line's variables over the description's
// defaults and reads the number of rounds.
func (d *Description) resolve(set map[string]string) (map[string]string, int, error) {
	vars := make(map[string]string, len(d.Vars)+len(set)+len(builtinVars))
	for k, v := range d.Vars {
		vars[k] = v
	}
	for _, k := range sortedKeys(set) {
		if _, ok := d.Vars[k]; !ok {
			return nil, 0, fmt.Errorf("unknown variable %q: %s has %s", k, d.Name, strings.Join(sortedKeys(d.Vars), ", "))
		}
		vars[k] = set[k]
	}
	rounds, err := strconv.Atoi(vars["rounds"])
	if err != nil || rounds < 1 {
		return nil, 0, fmt.Errorf("rounds=%q: want a whole number, at least 1", vars["rounds"])
	}
	return vars, rounds, nil
}

// ParseVars reads NAME=VALUE arguments.
func ParseVars(args []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want NAME=VALUE", a)
		}
		if _, dup := vars[k]; dup {
			return nil, fmt.Errorf("%s is set twice", k)
		}
		vars[k] = v
	}
	return vars, nil
}
