// Package tracker signs and checks dspd's own tracking URLs: the
// impression pixel and the click-through URL that each tracked bid's adm
// carries (and a video ad's progress events), so that what a browser or a
// video player fires back can be trusted without a lookup.
//
// A tracking URL names its event, the bid id, the bid's request time (whole
// Unix seconds), the exchange the bid was made for (in its path), the
// campaign and the creative; its signature is an HMAC-SHA256 over all of
// them, cut to 128 bits and written in base64url. The key is derived from
// the state's own secret (bidder.HashKey), so that every replica sharing a
// state, and the process after a restart, sign and check alike. A URL is
// valid for a time after its bid (Config.TTL at the caller), since renders
// and clicks come late; the signature covers the time, so the window cannot
// be stretched.
//
// It knows nothing of HTTP: package api builds the URLs into the answers
// and checks them when they come back.
package tracker
