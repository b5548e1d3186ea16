package synth

import "encoding/json"

// Campaign is one entry of the campaigns file, with the keys of section 2 of
// the recbid contract in the contract's order. Optional keys are omitted when
// empty. Money is a json.Number holding the shortest decimal of an integer
// count of micros, never a float.
type Campaign struct {
	// ID is unique in the file, e.g. "c-0042".
	ID string `json:"id"`
	// Advertiser is the brand name shown as the creative's alt text.
	Advertiser string `json:"advertiser"`
	// Adomain lists the advertiser's domains (at least one).
	Adomain []string `json:"adomain"`
	// Cat lists the ad's IAB categories (at least one).
	Cat []string `json:"cat"`
	// Status is "active" or "paused".
	Status string `json:"status"`
	// BidCPM is the bid in USD per 1,000 impressions, > 0.
	BidCPM json.Number `json:"bid_cpm"`
	// DailyBudget is the USD spend limit per UTC day; empty means none, and
	// "0" a campaign that never bids.
	DailyBudget json.Number `json:"daily_budget,omitempty"`
	// Start is the inclusive start of the flight, RFC 3339, or empty.
	Start string `json:"start,omitempty"`
	// End is the exclusive end of the flight, RFC 3339, or empty.
	End string `json:"end,omitempty"`
	// FreqCap limits wins per user, or is nil.
	FreqCap *FreqCap `json:"freq_cap,omitempty"`
	// Deals are the ids of the deals the campaign may bid in (contract
	// version 3), e.g. "D-0007"; omitted when empty.
	Deals []string `json:"deals,omitempty"`
	// OpenAuction, when set, is written as open_auction: false for a
	// campaign that bids only in its deals, true to say the default
	// aloud; nil omits it (the open auction, as in version 2).
	OpenAuction *bool `json:"open_auction,omitempty"`
	// Targeting restricts which requests match; it is always written, as {}
	// when no list is set.
	Targeting Targeting `json:"targeting"`
	// Creatives are the ads, in the order the bidder tries them.
	Creatives []Creative `json:"creatives"`
}

// FreqCap is a frequency cap: at most Impressions wins per user in each window
// of PeriodS seconds.
type FreqCap struct {
	// Impressions is the number of wins allowed per window, ≥ 1.
	Impressions int `json:"impressions"`
	// PeriodS is the window length in seconds, ≥ 1.
	PeriodS int `json:"period_s"`
}

// Targeting holds a campaign's targeting lists. An empty list does not
// restrict and is omitted from the JSON.
type Targeting struct {
	// Countries are ISO 3166-1 alpha-2 codes.
	Countries []string `json:"countries,omitempty"`
	// Regions are ISO 3166-2 codes, e.g. "CN-31".
	Regions []string `json:"regions,omitempty"`
	// Cities are city names, e.g. "Shanghai".
	Cities []string `json:"cities,omitempty"`
	// OS are operating systems, e.g. "android".
	OS []string `json:"os,omitempty"`
	// Devtypes are OpenRTB device types 1–7.
	Devtypes []int `json:"devtypes,omitempty"`
	// Sites are site domains the campaign buys.
	Sites []string `json:"sites,omitempty"`
	// Bundles are app bundles the campaign buys.
	Bundles []string `json:"bundles,omitempty"`
	// ExcludeSites are site domains the campaign never buys.
	ExcludeSites []string `json:"exclude_sites,omitempty"`
	// ExcludeBundles are app bundles the campaign never buys.
	ExcludeBundles []string `json:"exclude_bundles,omitempty"`
	// Cats are page IAB categories the campaign buys.
	Cats []string `json:"cats,omitempty"`
	// Hours are the UTC hours 0–23 the campaign buys, ascending.
	Hours []int `json:"hours,omitempty"`
}

// Creative is one ad of a campaign: a banner (Type empty, the version 2
// creative), a video or a native ad (contract version 3). The keys are
// written in the order of the fields; a key of another type is never
// written (each is omitted when empty), so that a banner's line is what
// version 2 wrote.
type Creative struct {
	// ID is unique within the campaign, e.g. "cr-0042-a".
	ID string `json:"id"`
	// Type is "video" or "native"; empty for a banner (omitted).
	Type string `json:"type,omitempty"`
	// W is the width in pixels, 1–10000 (banner and video; omitted on a
	// native ad).
	W int `json:"w,omitempty"`
	// H is the height in pixels, 1–10000 (banner and video).
	H int `json:"h,omitempty"`
	// Secure marks a creative whose URLs are all https; omitted when false.
	Secure bool `json:"secure,omitempty"`

	// DurationS is a video's duration in seconds, 1–3600.
	DurationS int `json:"duration_s,omitempty"`
	// Mime is a video's media type, e.g. "video/mp4".
	Mime string `json:"mime,omitempty"`
	// MediaURL is the absolute URL of a video's media file.
	MediaURL string `json:"media_url,omitempty"`
	// BitrateKbps is a video's bitrate, 1–100000.
	BitrateKbps int `json:"bitrate_kbps,omitempty"`
	// VASTVersion is a video's VAST version; empty: the default, 4.2.
	VASTVersion string `json:"vast_version,omitempty"`

	// Title is a native ad's title, 1–140 bytes.
	Title string `json:"title,omitempty"`
	// Body is a native ad's description, 0–500 bytes (omitted when empty).
	Body string `json:"body,omitempty"`
	// Sponsored is a native ad's "sponsored by" text, 1–64 bytes.
	Sponsored string `json:"sponsored,omitempty"`
	// CTA is a native ad's call to action, 0–32 bytes (omitted when empty).
	CTA string `json:"cta,omitempty"`

	// ImageURL is the absolute URL of a banner's image, or of a native
	// ad's main image.
	ImageURL string `json:"image_url,omitempty"`
	// ImageW and ImageH are a native ad's main image size.
	ImageW int `json:"image_w,omitempty"`
	ImageH int `json:"image_h,omitempty"`
	// IconURL is a native ad's icon, or empty (then IconW and IconH are 0).
	IconURL string `json:"icon_url,omitempty"`
	IconW   int    `json:"icon_w,omitempty"`
	IconH   int    `json:"icon_h,omitempty"`

	// ClickURL is the absolute landing page URL.
	ClickURL string `json:"click_url"`
}
