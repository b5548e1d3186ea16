// Package currency reads a currency-rates file in Prebid's format and
// converts an OpenRTB floor written in another currency into US dollar
// micros, exactly and rounded up, so that a bid that clears the converted
// floor never lands under the publisher's.
//
// The file is the one Prebid Server hosts fetch (and dspd -currency-rates
// reads):
//
//	{"dataAsOf": "2026-11-01",
//	 "conversions": {"USD": {"EUR": 0.9263914, "GBP": 0.78219473, …},
//	                 "EUR": {"USD": 1.0794573829, …}, …}}
//
// conversions[FROM][TO] is how many TO one FROM buys. A floor in CUR is
// converted with conversions[CUR]["USD"] when the file gives it, else with
// 1 / conversions["USD"][CUR]. Rates are read from their decimal text as
// exact rationals, with as many digits as they carry.
//
// It knows nothing of HTTP or of the engine: package api asks it for a
// floor's dollars before the decision.
package currency
