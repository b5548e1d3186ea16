package abrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Setup installs the commands a description needs and builds its
// binaries. Its functions are the system's by default (DefaultSetup);
// tests give fakes.
type Setup struct {
	Root     bool                                                          // may install packages
	LookPath func(string) (string, error)                                  // finds a command
	Exec     func(ctx context.Context, env []string, argv ...string) error // runs a command to its end
	Stderr   io.Writer                                                     // where it says what it installs
}

// DefaultSetup is the system's: root when the user id is 0, commands
// found on PATH and run with their standard error on stderr (their
// standard output, apt-get's progress, is dropped).
func DefaultSetup(stderr io.Writer) Setup {
	return Setup{Root: os.Getuid() == 0, LookPath: exec.LookPath, Stderr: stderr,
		Exec: func(ctx context.Context, env []string, argv ...string) error {
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), env...)
			cmd.Stderr = stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
			}
			return nil
		}}
}

// Install makes sure every needed command is there: the packages of the
// missing ones are installed from Debian when running as root (one
// apt-get update, then one apt-get install), else the error says which
// to install.
func (s Setup) Install(ctx context.Context, needs []Need) error {
	var missing, packages []string
	for _, n := range needs {
		if _, err := s.LookPath(n.Command); err != nil {
			missing = append(missing, n.Command)
			packages = append(packages, n.Package)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if !s.Root {
		return fmt.Errorf("%s missing: apt-get install %s", strings.Join(missing, " and "), strings.Join(packages, " "))
	}
	fmt.Fprintf(s.Stderr, "installing %s from Debian\n", strings.Join(packages, " "))
	if err := s.Exec(ctx, nil, "apt-get", "update", "-qq"); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if err := s.Exec(ctx, env, append([]string{"apt-get", "install", "-y", "-qq"}, packages...)...); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	for _, c := range missing {
		if _, err := s.LookPath(c); err != nil {
			return fmt.Errorf("install: %s still missing: %w", c, err)
		}
	}
	return nil
}

// Build builds each ./cmd/NAME of names into dir/NAME from the tree in
// the working directory.
func (s Setup) Build(ctx context.Context, names []string, dir string) error {
	for _, n := range names {
		if err := s.Exec(ctx, nil, "go", "build", "-o", filepath.Join(dir, n), "./cmd/"+n); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	return nil
}

// HaveBinaries checks that each of names is in dir, built before.
func HaveBinaries(names []string, dir string) error {
	var errs []error
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil {
			errs = append(errs, fmt.Errorf("binary %s: %w", n, err))
		} else if fi.IsDir() || fi.Mode()&0o111 == 0 {
			errs = append(errs, fmt.Errorf("binary %s: %s is not an executable file", n, filepath.Join(dir, n)))
		}
	}
	return errors.Join(errs...)
}
