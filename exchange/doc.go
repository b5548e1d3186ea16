// Package exchange declares the ad exchanges dspd trades with (contract
// version 2, section 7): the exchanges file and its validation, who may ask
// an exchange's bid endpoints for bids (source addresses, a bearer token),
// and how an exchange's clearing prices are read: clear decimals, or
// encrypted and signed with the two keys it shares with the bidder (the
// scheme Google Authorized Buyers documents, also used by OpenX, Index
// Exchange and BidSwitch).
//
// It knows nothing of HTTP: package api calls it with the header values and
// addresses it reads.
package exchange
