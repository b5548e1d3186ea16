package abrate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSystem has the commands in have, gains those install brings, and
// records the commands run.
type fakeSystem struct {
	have    map[string]bool
	install map[string]string // package to the command it brings
	ran     []string
}

func (f *fakeSystem) setup(root bool) Setup {
	return Setup{Root: root, Stderr: &bytes.Buffer{},
		LookPath: func(c string) (string, error) {
			if f.have[c] {
				return "/usr/bin/" + c, nil
			}
			return "", errors.New("not found")
		},
		Exec: func(_ context.Context, env []string, argv ...string) error {
			f.ran = append(f.ran, strings.TrimSpace(strings.Join(env, " ")+" "+strings.Join(argv, " ")))
			if len(argv) > 1 && argv[1] == "install" {
				for _, p := range argv[4:] {
					f.have[f.install[p]] = true
				}
			}
			return nil
		}}
}

func TestInstall(t *testing.T) {
	needs := []Need{{"wrk", "wrk"}, {"redis-server", "redis-server"}, {"taskset", "util-linux"}}
	for _, tc := range []struct {
		name    string
		have    []string
		root    bool
		wantRan []string
		wantErr string
	}{
		{"nothing missing: nothing run", []string{"wrk", "redis-server", "taskset"}, true, nil, ""},
		{"as root: one update, then one install of what is missing", []string{"taskset"}, true,
			[]string{"apt-get update -qq", "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk redis-server"}, ""},
		{"not root: says what to install", []string{"taskset", "redis-server"}, false, nil, "wrk missing: apt-get install wrk"},
		{"not root, two missing", []string{"taskset"}, false, nil, "wrk and redis-server missing: apt-get install wrk redis-server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := &fakeSystem{have: map[string]bool{}, install: map[string]string{"wrk": "wrk", "redis-server": "redis-server"}}
			for _, c := range tc.have {
				sys.have[c] = true
			}
			err := sys.setup(tc.root).Install(context.Background(), needs)
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tc.wantRan, sys.ran)
		})
	}
	sys := &fakeSystem{have: map[string]bool{}, install: map[string]string{}}
	err := sys.setup(true).Install(context.Background(), []Need{{"wrk", "not-wrk"}})
	assert.ErrorContains(t, err, "install: wrk still missing", "a package that does not bring the command")
}

func TestBuild(t *testing.T) {
	sys := &fakeSystem{have: map[string]bool{}}
	require.NoError(t, sys.setup(false).Build(context.Background(), []string{"dspd", "loadgen"}, "bin"))
	assert.Equal(t, []string{"go build -o bin/dspd ./cmd/dspd", "go build -o bin/loadgen ./cmd/loadgen"}, sys.ran)
}

func TestHaveBinaries(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dspd"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes"), []byte("x"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	assert.NoError(t, HaveBinaries([]string{"dspd"}, dir))
	err := HaveBinaries([]string{"dspd", "loadgen", "notes", "sub"}, dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "binary loadgen:")
	assert.Contains(t, err.Error(), "binary notes: "+filepath.Join(dir, "notes")+" is not an executable file")
	assert.Contains(t, err.Error(), "binary sub:")
	assert.NotContains(t, err.Error(), "binary dspd")
}
