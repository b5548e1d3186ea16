package api_test

import . "github.com/recbid/dspd/api"

// The internals and helpers export_test.go exports, by the names the
// tests use.
var (
	testNow          = TestNow
	readFile         = ReadFile
	gzipBytes        = GzipBytes
	ortbBody         = OrtbBody
	impList          = ImpList
	openrtbCampaigns = OpenrtbCampaigns
	ortbCampaign     = OrtbCampaign
	benchServer      = BenchServer
	benchServerWith  = BenchServerWith
	benchServerT     = BenchServerT
	writeCampaigns   = WriteCampaigns
	nbrCodes         = NbrCodes
	maxImps          = MaxImps
	maxFormats       = MaxFormats
	responseClose    = ResponseClose
)

const (
	testdataCampaigns = TestdataCampaigns
	corpusRates       = CorpusRates
)
