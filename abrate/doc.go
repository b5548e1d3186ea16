// Package abrate is the A/B measurement harness behind make rate,
// exchange-rate, multicore, scaling, loadgen-vs-wrk, openrtb-rate and redis-rate.
// Each measurement is a small declarative description (a JSON file under
// scripts/abrate/): the servers to start, with their flags, environment and
// CPU; the phases of load, each a list of runs of a driver (wrk or loadgen)
// with its arguments against a URL; the progress line printed after a run
// each round; the table printed at the end, whose lines name the
// medians and ratios they show; and line charts (SVG) over the same
// medians, when it has any.
//
// Measure starts the servers pinned to the server CPU (comparison.StartPinned),
// waits until each is ready, warms each run up once when its phase asks
// for it, then runs every run of a phase in turn, round after round, so
// that drift of the machine hits them alike, with the driver pinned to the
// load CPU; it keeps each run's request rate, latency percentiles and,
// for a run that names its server, the server's CPU time per request, and
// prints the medians of the rounds (comparison.Median). Descriptions are
// checked before anything starts: a dry run of the whole measurement with
// no processes finds every unknown name, misspelt template and figure a
// driver cannot give.
//
// The templates are text/template's, over the variables ({{.conns}}, and
// bin, tmp, server_cpu, load_cpu, round) and these functions: rps, p50,
// p99 and cpu KEY (a run's figure: this round's in a progress line, the
// median of its rounds elsewhere), ratio A B, mul V F, int V and size
// PATH. cmd/abrate is the command line.
package abrate
