// Command gendata writes dspd's synthetic testdata from a seed:
//
//	gendata -campaigns 1000 -requests 10000 -seed 20261102 -out testdata
//
// writes, in the -out directory,
//
//   - campaigns.json: the campaigns file (one campaign per line, so that the
//     committed file diffs line by line): -campaigns banner campaigns
//     (synth.Campaigns), then the campaigns of contract version 3 that
//     follow them (synth.MediaCampaigns: per 1,000, 60 video, 40 native,
//     40 deal-only banner and 20 premium banner campaigns with deals);
//   - post.data: one fixed bid request body with no trailing newline, the file
//     `ab -p post.data -T application/x-www-form-urlencoded` posts;
//   - requests.txt: url-encoded bid request bodies, one per line, drawn
//     against the banner campaigns only (the form protocol serves nothing
//     else, and so its corpus stayed what it was when the others came);
//   - openrtb/requests.jsonl: the same requests as OpenRTB 2.6 BidRequests,
//     one JSON object per line, for POST /openrtb2/bid (`loadgen -corpus
//     testdata/openrtb/requests.jsonl -T application/json`);
//   - openrtb/post.json: post.data as an OpenRTB BidRequest, with no
//     trailing newline, for loadgen -p;
//   - openrtb/exchange.jsonl: -exchange-requests OpenRTB BidRequests shaped
//     like real exchange traffic (synth.ExchangeTraffic: the OpenRTB 2.6
//     object model, video and native impressions, deals, floors in several
//     currencies, a few malformed optional fields), built from
//     requests.txt, with deals of the campaigns';
//   - openrtb/currency.json: the currency rates those floors use, in
//     Prebid's currency-file format (dspd -currency-rates).
//
// (-openrtb names the subdirectory of the OpenRTB files; -openrtb "" skips
// them.)
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
	openrtb := flag.String("openrtb", "openrtb", "subdirectory of -out for the OpenRTB corpora, post.json and currency.json (empty: none)")
	nExchange := flag.Int("exchange-requests", 2000, "number of exchange-shaped OpenRTB requests to generate")
	flag.Parse()
	if flag.NArg() > 0 || *nCampaigns < 0 || *nRequests < 0 || *nExchange < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*nCampaigns, *nRequests, *nExchange, *seed, *out, *openrtb); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

func run(nCampaigns, nRequests, nExchange int, seed uint64, out, openrtbDir string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// The banner campaigns of contract version 2, then those of version 3
	// (video, native, deals). The recbid corpus is drawn from the first
	// ones only, as it was before the others existed: they cannot change
	// a form answer, and so its requests stay what they were.
	cs := synth.Campaigns(nCampaigns, seed)
	all := append(cs[:len(cs):len(cs)], synth.MediaCampaigns(nCampaigns, seed)...)
	if err := writeFile(filepath.Join(out, "campaigns.json"), func(w *bufio.Writer) error {
		return synth.WriteCampaigns(w, all)
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, "post.data"), func(w *bufio.Writer) error {
		_, err := w.WriteString(synth.PostData())
		return err
	}); err != nil {
		return err
	}
	bodies := synth.Requests(nRequests, seed, cs)
	if err := writeLines(filepath.Join(out, "requests.txt"), bodies); err != nil {
		return err
	}
	if openrtbDir == "" {
		return nil
	}
	dir := filepath.Join(out, openrtbDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	requests, err := synth.OpenRTBRequests(bodies)
	if err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, "requests.jsonl"), requests); err != nil {
		return err
	}
	traffic, err := synth.ExchangeTraffic(nExchange, seed, bodies, all)
	if err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, "exchange.jsonl"), traffic); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "currency.json"), func(w *bufio.Writer) error {
		_, err := w.WriteString(synth.CurrencyFile())
		return err
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "post.json"), func(w *bufio.Writer) error {
		_, err := w.WriteString(synth.OpenRTBPostData())
		return err
	})
}

// writeLines writes one line per string.
func writeLines(path string, lines []string) error {
	return writeFile(path, func(w *bufio.Writer) error {
		for _, l := range lines {
			w.WriteString(l)
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
