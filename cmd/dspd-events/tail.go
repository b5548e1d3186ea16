package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recbid/dspd/events"
	"github.com/recbid/dspd/events/reconcile"
)

// followEvery is how often tail -f looks for new records.
const followEvery = 200 * time.Millisecond

const tailUsage = `Usage: dspd-events tail [-dir DIR ...] [-type TYPE] [-campaign CAMPAIGN] [-exchange EXCHANGE] [-since TIME] [-f]

Prints the records of the event log directories that match every filter
given, as they are (one JSON object a line), directory by directory, each
in its order. With -f, it then prints the new records as they are written
(looking every 200 ms, through rotations and compression) until
interrupted. Records a dspd has written but not yet synced are printed too.
`

func runTail(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("tail", tailUsage, stderr)
	var (
		dirs     listFlag
		typ      string
		since    string
		follow   bool
		cfg      reconcile.TailConfig
		typeList []string
	)
	for _, t := range events.Types() {
		typeList = append(typeList, t.String())
	}
	fs.Var(&dirs, "dir", "the event log directory `DIR`; repeat it for each replica's (default "+defaultDir+")")
	fs.StringVar(&typ, "type", "", "only records of this `TYPE`: "+strings.Join(typeList, ", "))
	fs.StringVar(&cfg.Filter.Campaign, "campaign", "", "only the records of this `CAMPAIGN`")
	fs.StringVar(&cfg.Filter.Exchange, "exchange", "", "only the records of this `EXCHANGE`")
	fs.StringVar(&since, "since", "", "only the records at or after `TIME`: RFC 3339 (2026-12-01T00:00:00Z), or a duration before now (90m)")
	fs.BoolVar(&follow, "f", false, "follow: print the new records as they come, until interrupted")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dspd-events tail: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if typ != "" {
		t, ok := events.ParseType(typ)
		if !ok {
			fmt.Fprintf(stderr, "dspd-events tail: -type %q is none of %s\n", typ, strings.Join(typeList, ", "))
			return exitUsage
		}
		cfg.Filter.Type = t
	}
	if since != "" {
		t, err := parseSince(since, time.Now())
		if err != nil {
			fmt.Fprintln(stderr, "dspd-events tail:", err)
			return exitUsage
		}
		cfg.Filter.Since = t
	}
	cfg.Dirs = dirs
	if len(cfg.Dirs) == 0 {
		cfg.Dirs = []string{defaultDir}
	}
	if follow {
		cfg.Follow = followEvery
	}
	if err := reconcile.Tail(ctx, cfg, stdout); err != nil {
		fmt.Fprintln(stderr, "dspd-events:", err)
		return exitUsage
	}
	return exitOK
}
