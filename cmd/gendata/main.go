// Command gendata writes dspd's synthetic testdata from a seed:
//
//	gendata -campaigns 1000 -requests 10000 -seed 20261102 -out testdata
//
// writes, in the -out directory,
//
//   - campaigns.json: the campaigns file (one campaign per line, so that the
//     committed file diffs line by line);
//   - post.data: one fixed bid request body with no trailing newline, the file
//     `ab -p post.data -T application/x-www-form-urlencoded` posts;
//   - requests.txt: url-encoded bid request bodies, one per line.
//
// The output depends only on the flags: the same seed always gives the same
// bytes (see package internal/synth).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recbid/dspd/internal/synth"
)

func main() {
	nCampaigns := flag.Int("campaigns", 1000, "number of campaigns to generate")
	nRequests := flag.Int("requests", 10000, "number of request bodies to generate")
	seed := flag.Uint64("seed", synth.DefaultSeed, "random seed")
	out := flag.String("out", "testdata", "output directory")
	flag.Parse()
	if flag.NArg() > 0 || *nCampaigns < 0 || *nRequests < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*nCampaigns, *nRequests, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

func run(nCampaigns, nRequests int, seed uint64, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	cs := synth.Campaigns(nCampaigns, seed)
	if err := writeFile(filepath.Join(out, "campaigns.json"), func(w *bufio.Writer) error {
		return synth.WriteCampaigns(w, cs)
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, "post.data"), func(w *bufio.Writer) error {
		_, err := w.WriteString(synth.PostData())
		return err
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(out, "requests.txt"), func(w *bufio.Writer) error {
		for _, body := range synth.Requests(nRequests, seed, cs) {
			w.WriteString(body)
			w.WriteByte('\n')
		}
		return nil
	})
}

// writeFile writes a file through a temporary file in the same directory and
// renames it into place, so that a failed run never leaves half a file.
func writeFile(path string, fill func(*bufio.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := fill(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
