package abrate

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// start expands server s's templates and launches it.
func (r *runner) start(ctx context.Context, s Server) (Proc, error) {
	where := fmt.Sprintf("server %q", s.Name)
	v := r.noFigures()
	spec := ServerSpec{Name: s.Name, CPUs: r.cpuList(s.CPUs),
		LogPath: filepath.Join(r.tmp, strings.ReplaceAll(s.Name, "/", "-")+".log")}
	argv, err := expandAll(where+", args", append([]string{s.Command}, s.Args...), r.vars, v)
	if err != nil {
		return nil, err
	}
	spec.Argv = argv
	if spec.Env, err = expandAll(where+", env", s.Env, r.vars, v); err != nil {
		return nil, err
	}
	ready, err := expandAll(where+", ready", []string{s.Ready.URL, s.Ready.Post, s.Ready.TCP}, r.vars, v)
	if err != nil {
		return nil, err
	}
	spec.Ready = Ready{URL: ready[0], Post: ready[1], TCP: ready[2]}
	if c := s.Capture; c != nil {
		f, err := expandAll(where+", capture", []string{c.URL, c.Body, c.Type, c.To}, r.vars, v)
		if err != nil {
			return nil, err
		}
		spec.Capture = &Capture{URL: f[0], Body: f[1], Type: f[2], To: filepath.Join(r.tmp, f[3])}
	}
	p, err := r.cfg.Launcher.Launch(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return p, nil
}

// cpuList is taskset's list of the CPUs of the roles (the server's when
// none), each once.
func (r *runner) cpuList(roles []string) string {
	if len(roles) == 0 {
		roles = []string{"server"}
	}
	var ids []string
	for _, role := range roles {
		id := r.cfg.ServerCPU
		if role == "load" {
			id = r.cfg.LoadCPU
		}
		if s := strconv.Itoa(id); !slices.Contains(ids, s) {
			ids = append(ids, s)
		}
	}
	return strings.Join(ids, ",")
}
