// Command dspd-events reads dspd's event log (package events; the JSON
// lines of docs/events.md), over package events/reconcile:
//
//	dspd-events tail [-dir DIR ...] [-type TYPE] [-campaign CAMPAIGN] [-exchange EXCHANGE] [-since TIME] [-f]
//	dspd-events reconcile -day YYYY-MM-DD [-dir DIR ...] (-admin URL [-campaigns FILE] | -state DIR)
//	dspd-events reconcile -invoice FILE [-exchange EXCHANGE] [-day YYYY-MM-DD] [-dir DIR ...]
//
// tail prints the records that match, as they are, and follows the new
// ones with -f. reconcile sums a day of the log and compares it with
// dspd's books, to the micro, or compares the log's wins with an
// exchange's invoice. reconcile exits 0 when both sides agree, 1 on any
// difference, 2 on a usage or I/O error. The directories default to
// data/events, dspd's own with its default -state disk:data.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK          = 0
	exitDifferences = 1 // reconcile found a difference
	exitUsage       = 2 // a usage or I/O error
)

// defaultDir is the event log directory of a dspd run with its default
// state directory, data.
const defaultDir = "data/events"

const usage = `Usage: dspd-events COMMAND [flags]

Reads dspd's event log: the JSON lines the replicas write under their
state directory (data/events by default).

Commands:
  tail        print the records that match (-type, -campaign, -exchange,
              -since), as they are; -f follows the new ones until interrupted
  reconcile   sum one UTC day of the log and compare it with dspd's books, to
              the micro (-day with -admin or -state), or compare the log's wins
              with an exchange's invoice (-invoice); exits 1 on any difference

"dspd-events COMMAND -h" describes each command's flags.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "tail":
		return runTail(ctx, args[1:], stdout, stderr)
	case "reconcile":
		return runReconcile(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stderr, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "dspd-events: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
