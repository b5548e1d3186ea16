// Package bidder is dspd's domain: campaigns and their validation, the
// targeting index, the bid decision, and the interfaces of the budget,
// frequency and bid-record state (Ledger, BidStore), whose implementations
// stand side by side under state/ (memory, disk, redis). It knows nothing
// of HTTP or of a storage engine: transports live in package api.
//
// Money is held as integer micros (1 USD = 1,000,000 micros) everywhere; CPM
// prices are USD per 1,000 impressions, also in micros.
package bidder
