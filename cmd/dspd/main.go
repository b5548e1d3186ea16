// Command dspd is the bid server: it answers POST /dsp/recbid and
// GET /dsp/win on the public address and serves pprof, Prometheus metrics,
// health, reload and stats on the admin address (loopback by default).
//
//	dspd -addr :9090 -admin 127.0.0.1:6060 -campaigns testdata/campaigns.json -seat dsp -public-url URL
//
// SIGHUP reloads the campaigns file; SIGTERM or SIGINT drains in-flight
// requests and exits 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/recbid/dspd/state/disk/synchelper"
)

func main() {
	synchelper.ServeIfHelper() // this binary started again as the disk state's fsync helper: serves, never returns
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		os.Exit(2)
	}
	log := newLogger(cfg.logFormat, cfg.logLevel, os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	if err := run(ctx, cfg, log, hup, hooks{}); err != nil {
		log.Error("dspd stopped", "err", err)
		os.Exit(1)
	}
}

func newLogger(format, level string, w io.Writer) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		lvl = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lvl}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func usage(fs *flag.FlagSet, w io.Writer) func() {
	return func() {
		fmt.Fprintf(w, "Usage: dspd [flags]\n\nThe recbid bid server. Flags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}
