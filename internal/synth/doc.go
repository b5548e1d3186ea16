// Package synth generates realistic, deterministic synthetic campaigns and bid
// requests for dspd's testdata and benchmarks.
//
// Everything is derived from a seed with math/rand/v2's PCG generator: the same
// seed and the same arguments always give byte-identical output, on every
// platform, and nothing reads the clock or the global random source. No
// floating point is used on the way to any value that is written out, money
// included: amounts are integer micros (1 USD = 1,000,000 micros) formatted as
// their shortest decimal.
//
// The campaigns follow section 2 of the recbid contract (docs/protocol.md)
// and the request bodies follow section 1; every generated campaign passes the
// contract's validation rules.
package synth
