package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/events/reconcile"
)

// adminTokenEnv holds the admin listener's bearer token, as for dspd.
const adminTokenEnv = "DSPD_ADMIN_TOKEN"

const reconcileUsage = `Usage:
  dspd-events reconcile -day YYYY-MM-DD [-dir DIR ...] (-admin URL [-campaigns FILE] | -state DIR)
  dspd-events reconcile -invoice FILE [-exchange EXCHANGE] [-day YYYY-MM-DD] [-dir DIR ...]

With -day and a ledger, sums the log's records of that UTC day, per campaign
and per campaign and exchange, and compares them with dspd's books (bids,
wins, spend), to the micro: bids by their request time (test bids left
out), wins and spend by their bid's request time (bid_time), as the books
count them; billing notices, impressions and clicks by their own time,
shown beside (the books do not count them). It prints a table of both
sides, then every difference. The books are read from
  -admin URL   a running dspd's admin listener (GET /admin/stats), with the
               token in $DSPD_ADMIN_TOKEN when it has one. The listener cannot
               list campaigns: it is asked for those the log names, and those
               of -campaigns FILE (dspd's campaigns file), so a campaign the
               books counted that neither names is not seen;
  -state DIR   the state directory of a stopped dspd (refused while a dspd
               holds it: use -admin then).
Reconcile a day once it is over and its bids' win notices are in (wins are
booked under their bid's day up to dspd's -bid-ttl after midnight). Records
repeated (two directories holding the same records, a stream delivered at
least once) are counted once; the report says how many were dropped.

With -invoice, compares an exchange's invoice (CSV "bidid,price", prices in
the currency unit, or "bidid,price_micros"; the header is optional) with the
log's win records (of -exchange, of the bids of -day when given): bids
billed without a win in the log, wins not billed, prices that differ.

Exits 0 when both sides agree, 1 on any difference, 2 on a usage or I/O
error.
`

// reconcileOptions are reconcile's flags.
type reconcileOptions struct {
	dirs, ins               listFlag
	day                     string
	admin, campaigns, state string
	invoice, exchange       string
}

func parseReconcile(args []string, stderr io.Writer) (reconcileOptions, error) {
	var o reconcileOptions
	fs := newFlagSet("reconcile", reconcileUsage, stderr)
	fs.Var(&o.dirs, "dir", "the event log directory `DIR`; repeat it for each replica's (default "+defaultDir+", unless -in is given)")
	fs.Var(&o.ins, "in", "a `FILE` of records, JSON lines, plain or gzipped (- for standard input): a dump of the Kafka topic, say; may be repeated")
	fs.StringVar(&o.day, "day", "", "the UTC day `YYYY-MM-DD` to sum (with -invoice: only the wins of its bids are compared)")
	fs.StringVar(&o.admin, "admin", "", "compare with the books of the dspd whose admin listener is at `URL`, as http://127.0.0.1:6060 (its token from $"+adminTokenEnv+")")
	fs.StringVar(&o.campaigns, "campaigns", "", "with -admin: dspd's campaigns `FILE`, whose campaigns are asked for too")
	fs.StringVar(&o.state, "state", "", "compare with the books in the state directory `DIR` of a stopped dspd (DIR or disk:DIR)")
	fs.StringVar(&o.invoice, "invoice", "", "compare the log's wins with the invoice (CSV) in `FILE` instead")
	fs.StringVar(&o.exchange, "exchange", "", "with -invoice: the `EXCHANGE` whose wins are compared (default: every exchange's)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.invoice != "" && (o.admin != "" || o.state != "" || o.campaigns != ""):
		return o, errors.New("-invoice compares with the log only: no -admin, -state or -campaigns")
	case o.invoice != "":
	case o.day == "":
		return o, errors.New("-day is needed (or -invoice)")
	case (o.admin == "") == (o.state == ""):
		return o, errors.New("one of -admin and -state is needed: where the books are read")
	case o.campaigns != "" && o.admin == "":
		return o, errors.New("-campaigns goes with -admin (a state directory lists its campaigns)")
	case o.exchange != "":
		return o, errors.New("-exchange goes with -invoice (the day's report has every exchange)")
	}
	if len(o.dirs) == 0 && len(o.ins) == 0 {
		o.dirs = listFlag{defaultDir}
	}
	return o, nil
}

func runReconcile(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseReconcile(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "dspd-events reconcile:", err)
		return exitUsage
	}
	var exact bool
	if o.invoice != "" {
		exact, err = reconcileInvoice(ctx, o, stdout)
	} else {
		exact, err = reconcileDay(ctx, o, stdout)
	}
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "dspd-events:", err)
		return exitUsage
	case !exact:
		return exitDifferences
	}
	return exitOK
}

// reconcileDay compares the day's sums with the books.
func reconcileDay(ctx context.Context, o reconcileOptions, stdout io.Writer) (bool, error) {
	day, err := bidder.ParseDay(o.day)
	if err != nil {
		return false, fmt.Errorf("-day %q is not YYYY-MM-DD", o.day)
	}
	var ledger reconcile.Ledger = reconcile.StateLedger{Dir: strings.TrimPrefix(o.state, "disk:")}
	if o.admin != "" {
		a := &reconcile.AdminLedger{URL: o.admin, Token: os.Getenv(adminTokenEnv)}
		if o.campaigns != "" {
			if a.Campaigns, err = reconcile.ReadCampaignIDs(o.campaigns); err != nil {
				return false, err
			}
		}
		ledger = a
	}
	s := reconcile.NewSummer(day)
	if err := readLog(ctx, o, s.Add); err != nil {
		return false, err
	}
	r, err := reconcile.Compare(ctx, s.Sums(), ledger)
	if err != nil {
		return false, err
	}
	if err := reconcile.WriteReport(stdout, r); err != nil {
		return false, err
	}
	if time.Now().Before(day.Time().Add(24*time.Hour + bidder.DefaultBidTTL)) {
		fmt.Fprintln(stdout, "note: the day's win notices may still come (until its end plus dspd's -bid-ttl, 10 minutes by default): its counters may still move")
	}
	if o.admin != "" && o.campaigns == "" {
		fmt.Fprintln(stdout, "note: the admin listener cannot list campaigns; only those the log names were asked for (-campaigns FILE asks for the others too)")
	}
	return r.Exact(), nil
}

// reconcileInvoice compares the invoice with the log's wins.
func reconcileInvoice(ctx context.Context, o reconcileOptions, stdout io.Writer) (bool, error) {
	f := reconcile.InvoiceFilter{Exchange: o.exchange}
	if o.day != "" {
		day, err := bidder.ParseDay(o.day)
		if err != nil {
			return false, fmt.Errorf("-day %q is not YYYY-MM-DD", o.day)
		}
		f.ByDay, f.Day = true, day
	}
	file, err := os.Open(o.invoice)
	if err != nil {
		return false, err
	}
	inv, err := reconcile.ReadInvoice(file)
	file.Close()
	if err != nil {
		return false, fmt.Errorf("%s: %w", o.invoice, err)
	}
	wins := reconcile.NewWins()
	if err := readLog(ctx, o, wins.Add); err != nil {
		return false, err
	}
	r := reconcile.CompareInvoice(inv, wins, f)
	if err := reconcile.WriteInvoiceReport(stdout, r); err != nil {
		return false, err
	}
	return r.Exact(), nil
}

// readLog calls add with every record of the directories and files.
func readLog(ctx context.Context, o reconcileOptions, add func(*reconcile.Record)) error {
	each := func(line []byte) error {
		r, err := reconcile.ParseRecord(line)
		if err != nil {
			return err
		}
		add(&r)
		return nil
	}
	if err := reconcile.ReadDirs(ctx, o.dirs, each); err != nil {
		return err
	}
	for _, name := range o.ins {
		var in io.Reader = os.Stdin
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			in = f
		}
		if err := reconcile.ReadLines(in, name, each); err != nil {
			return err
		}
	}
	return nil
}
