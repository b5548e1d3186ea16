// Package bidder is dspd's domain: campaigns and their validation, the
// targeting index, the bid decision, and the budget, frequency and bid-record
// state behind interfaces. It knows nothing of HTTP: transports live in
// package api.
//
// Money is held as integer micros (1 USD = 1,000,000 micros) everywhere; CPM
// prices are USD per 1,000 impressions, also in micros.
package bidder
