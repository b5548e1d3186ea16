package api

import (
	"log/slog"
	"time"
)

// What the tests of package api_test (which drive the core through the
// front ends, packages nethttp and fasthttp, and the admin listener, none
// of which package api's own tests can import) read of the core's
// internals and of the internal tests' helpers; aliases_test.go names them
// as the tests always did.

var (
	TestNow          = testNow
	ReadFile         = readFile
	GzipBytes        = gzipBytes
	OrtbBody         = ortbBody
	ImpList          = impList
	OpenrtbCampaigns = openrtbCampaigns
	OrtbCampaign     = ortbCampaign
	BenchServer      = benchServer
	BenchServerWith  = benchServerWith
	BenchServerT     = benchServerT
	WriteCampaigns   = writeCampaigns
	NbrCodes         = nbrCodes
	MaxImps          = maxImps
	MaxFormats       = maxFormats
	MaxIDLen         = maxIDLen
	ResponseClose    = responseClose
)

const (
	TestdataCampaigns = testdataCampaigns
	CorpusRates       = corpusRates
)

// SetCampaignsPath points the server's reloads at another campaigns file.
func (s *Server) SetCampaignsPath(path string) { s.cfg.CampaignsPath = path }

// MaxExample bounds the value quoted in the log line of a bad field.
const MaxExample = maxExample

// SetLogger sends the server's own log lines (panics, reloads) to l.
func (s *Server) SetLogger(l *slog.Logger) { s.log = l }

// SetInvalidLog sends the sampled lines of malformed OpenRTB fields to l,
// on the clock now.
func (s *Server) SetInvalidLog(l *slog.Logger, now func() time.Time) {
	s.invalidLog.log, s.invalidLog.now = l, now
}

// SetMaxCampaignsBytes bounds the campaigns file the next reloads read.
func (s *Server) SetMaxCampaignsBytes(n int64) { s.cfg.MaxCampaignsBytes = n }
