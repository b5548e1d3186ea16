package bidder

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recbid/dspd/internal/bounded"
	"github.com/recbid/dspd/internal/jsoncodec"
	"github.com/recbid/dspd/internal/problems"
)

// ErrInvalidCatalog is the cause of every error that rejects a campaigns
// file; the *problems.Error that wraps it names each problem.
var ErrInvalidCatalog = errors.New("invalid campaigns file")

// DefaultMaxCatalogBytes is the default bound on the size of a campaigns
// file (dspd -max-campaigns-bytes): 256 MiB, 100,000 campaigns several
// times over, and what a small host can hold beside the books while a
// reload reads it.
const DefaultMaxCatalogBytes = 256 << 20

// DefaultExchange is the id of the exchange a server without an exchanges
// file trades with: the only one its campaigns may target.
const DefaultExchange = "default"

// LoadCatalogFile reads, validates and indexes a campaigns file whose
// campaigns may target the given exchanges (nil: DefaultExchange only),
// reading no more than maxBytes of it (0: DefaultMaxCatalogBytes). A file
// with any error is rejected whole: the error is a *problems.Error naming
// every problem, or an I/O error.
func LoadCatalogFile(path string, exchanges []string, maxBytes int64) (*Catalog, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxCatalogBytes
	}
	data, err := bounded.ReadFile(path, maxBytes)
	switch {
	case errors.Is(err, bounded.ErrTooLarge):
		return nil, problems.New(ErrInvalidCatalog, fmt.Sprintf("file is larger than %d bytes (-max-campaigns-bytes)", maxBytes))
	case err != nil:
		return nil, fmt.Errorf("campaigns: %w", err)
	}
	return ParseCatalogFor(data, exchanges)
}

// ParseCatalog validates and indexes the JSON text of a campaigns file for a
// server without an exchanges file.
func ParseCatalog(data []byte) (*Catalog, error) { return ParseCatalogFor(data, nil) }

// ParseCatalogFor validates and indexes the JSON text of a campaigns file
// whose campaigns may target the given exchanges (nil: DefaultExchange only).
func ParseCatalogFor(data []byte, exchanges []string) (*Catalog, error) {
	// Fast path: one json-iterator pass over a well-formed file.
	var top struct {
		Campaigns *[]*fileCampaign `json:"campaigns"` // pointers: growing the slice copies little
	}
	if err := jsoncodec.Unmarshal(data, &top); err != nil {
		return nil, decodeProblems(data, exchanges)
	}
	if top.Campaigns == nil {
		return nil, problems.New(ErrInvalidCatalog, `no "campaigns" list`)
	}
	fcs := *top.Campaigns
	ch := newFileChecker(len(fcs), exchanges)
	for i, fc := range fcs {
		if fc == nil { // a null in the list
			ch.problems = append(ch.problems, fmt.Sprintf("campaign #%d: not an object", i))
			continue
		}
		ch.check(i, fc)
	}
	if len(ch.problems) > 0 {
		return nil, problems.New(ErrInvalidCatalog, ch.problems...)
	}
	return NewCatalog(ch.campaigns), nil
}

// decodeProblems names what makes a file undecodable, campaign by campaign,
// with encoding/json's precise messages: the slow path, taken only for a file
// that is rejected anyway.
func decodeProblems(data []byte, exchanges []string) error {
	var top struct {
		Campaigns *[]json.RawMessage `json:"campaigns"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return problems.New(ErrInvalidCatalog, "not a campaigns file: "+err.Error())
	}
	if top.Campaigns == nil {
		return problems.New(ErrInvalidCatalog, `no "campaigns" list`)
	}
	ch := newFileChecker(len(*top.Campaigns), exchanges)
	for i, raw := range *top.Campaigns {
		var fc fileCampaign
		if err := json.Unmarshal(raw, &fc); err != nil {
			ch.problems = append(ch.problems, fmt.Sprintf("campaign %s: %v", campaignName(i, fc.ID), err))
			continue
		}
		ch.check(i, &fc)
	}
	if len(ch.problems) == 0 { // encoding/json accepts what json-iterator did not
		ch.problems = []string{"not a campaigns file: malformed JSON"}
	}
	return problems.New(ErrInvalidCatalog, ch.problems...)
}

// fileChecker validates the campaigns of a file one by one, collecting
// every problem, duplicate ids included.
type fileChecker struct {
	problems  []string
	campaigns []*Campaign
	seen      map[string]int
	exchanges map[string]bool // the exchange ids campaigns may target
}

func newFileChecker(n int, exchanges []string) *fileChecker {
	if exchanges == nil {
		exchanges = []string{DefaultExchange}
	}
	known := make(map[string]bool, len(exchanges))
	for _, id := range exchanges {
		known[id] = true
	}
	return &fileChecker{campaigns: make([]*Campaign, 0, n), seen: make(map[string]int, n), exchanges: known}
}

func (ch *fileChecker) check(i int, fc *fileCampaign) {
	c, errs := fc.validate(ch.exchanges)
	name := campaignName(i, fc.ID)
	for _, e := range errs {
		ch.problems = append(ch.problems, "campaign "+name+": "+e)
	}
	if fc.ID != "" {
		if j, dup := ch.seen[fc.ID]; dup {
			ch.problems = append(ch.problems, fmt.Sprintf("campaign %s: id: duplicate of campaign #%d", name, j))
		} else {
			ch.seen[fc.ID] = i
		}
	}
	if len(errs) == 0 {
		ch.campaigns = append(ch.campaigns, c)
	}
}

func campaignName(i int, id string) string {
	if id != "" && IsPrintableASCII(id) && len(id) <= 64 {
		return id
	}
	return fmt.Sprintf("#%d", i)
}

// fileCampaign is a campaign as the JSON file spells it.
type fileCampaign struct {
	ID          string         `json:"id,omitempty"`
	Advertiser  string         `json:"advertiser,omitempty"`
	ADomain     []string       `json:"adomain,omitempty"`
	Cat         []string       `json:"cat,omitempty"`
	Status      string         `json:"status,omitempty"`
	BidCPM      rawNumber      `json:"bid_cpm,omitempty"`
	DailyBudget rawNumber      `json:"daily_budget,omitempty"`
	Start       string         `json:"start,omitempty"`
	End         string         `json:"end,omitempty"`
	FreqCap     *fileFreqCap   `json:"freq_cap,omitempty"`
	Pacing      string         `json:"pacing,omitempty"`
	Targeting   fileTargeting  `json:"targeting,omitempty"`
	Creatives   []fileCreative `json:"creatives,omitempty"`
	Deals       []string       `json:"deals,omitempty"`
	OpenAuction *bool          `json:"open_auction,omitempty"`
}

type fileFreqCap struct {
	Impressions rawNumber `json:"impressions,omitempty"`
	PeriodS     rawNumber `json:"period_s,omitempty"`
}

type fileTargeting struct {
	Countries      []string    `json:"countries,omitempty"`
	Regions        []string    `json:"regions,omitempty"`
	Cities         []string    `json:"cities,omitempty"`
	OS             []string    `json:"os,omitempty"`
	DevTypes       []rawNumber `json:"devtypes,omitempty"`
	Sites          []string    `json:"sites,omitempty"`
	Bundles        []string    `json:"bundles,omitempty"`
	ExcludeSites   []string    `json:"exclude_sites,omitempty"`
	ExcludeBundles []string    `json:"exclude_bundles,omitempty"`
	Cats           []string    `json:"cats,omitempty"`
	Hours          []rawNumber `json:"hours,omitempty"`
	Exchanges      []string    `json:"exchanges,omitempty"`
}

type fileCreative struct {
	ID       string    `json:"id,omitempty"`
	Type     string    `json:"type,omitempty"`
	W        rawNumber `json:"w,omitempty"`
	H        rawNumber `json:"h,omitempty"`
	Secure   bool      `json:"secure,omitempty"`
	ImageURL *string   `json:"image_url,omitempty"`
	ClickURL string    `json:"click_url,omitempty"`

	// video
	DurationS   rawNumber `json:"duration_s,omitempty"`
	Mime        *string   `json:"mime,omitempty"`
	MediaURL    *string   `json:"media_url,omitempty"`
	BitrateKbps rawNumber `json:"bitrate_kbps,omitempty"`
	VASTVersion *string   `json:"vast_version,omitempty"`

	// native
	Title     *string   `json:"title,omitempty"`
	Body      *string   `json:"body,omitempty"`
	Sponsored *string   `json:"sponsored,omitempty"`
	CTA       *string   `json:"cta,omitempty"`
	ImageW    rawNumber `json:"image_w,omitempty"`
	ImageH    rawNumber `json:"image_h,omitempty"`
	IconURL   *string   `json:"icon_url,omitempty"`
	IconW     rawNumber `json:"icon_w,omitempty"`
	IconH     rawNumber `json:"icon_h,omitempty"`
}

// rawNumber keeps a JSON value's literal text so that validation can insist
// on a number and check its digits exactly, without float64.
type rawNumber string

func (n *rawNumber) UnmarshalJSON(b []byte) error {
	*n = rawNumber(b)
	return nil
}

// MarshalJSON writes the literal back as it was read (a campaign's
// canonical document, CheckCampaignDoc).
func (n rawNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }
