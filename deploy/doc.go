// Package deploy holds no code: its directory holds what operators deploy
// beside dspd, as files. prometheus/ is a scrape configuration for dspd's
// admin listener, the alert and recording rules (dspd.rules.yml) and their
// unit tests for promtool; grafana/dspd.json is a dashboard;
// prebid-server/ is the bidder-info file a Prebid Server host drops in.
// docs/operations.md ("Prometheus and Grafana") describes them.
//
// The package's tests check the Prometheus and Grafana files: with
// promtool, and against a real dspd scraped by a real Prometheus, where
// every rule and every panel must query series that exist.
package deploy
