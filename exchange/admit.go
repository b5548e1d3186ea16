package exchange

import (
	"crypto/subtle"
	"fmt"
	"github.com/recbid/dspd/internal/bytesview"
	"net/netip"
	"strings"
)

// Exchange is one exchange the server trades with.
type Exchange struct {
	ID         string
	Pricing    *Pricing
	PriceMacro string         // the text the exchange replaces with the clearing price in nurl and burl
	allow      []netip.Prefix // nil: any source
	token      []byte         // nil: no token
}

// Refusal says why a bid request is not admitted.
type Refusal uint8

// The refusals of Admit.
const (
	Admitted      Refusal = iota
	RefusedSource         // the client's address is outside allow
	RefusedToken          // the bearer token is missing or wrong
)

// String returns the refusal's cause as metrics label it.
func (r Refusal) String() string { return [...]string{"", "source", "token"}[r] }

// Open reports whether anyone may ask the exchange for bids.
func (e *Exchange) Open() bool { return e.allow == nil && e.token == nil }

// Admit checks a bid request: its client address must be in allow (when
// the exchange has one), and its Authorization header must carry the
// exchange's bearer token (when it has one), compared in constant time.
func (e *Exchange) Admit(client netip.Addr, authorization string) Refusal {
	if e.allow != nil && !contains(e.allow, client) {
		return RefusedSource
	}
	if e.token != nil {
		scheme, tok, _ := strings.Cut(authorization, " ")
		tok = strings.TrimLeft(tok, " ")
		// The comparison only reads the header's bytes: no copy of them.
		if !strings.EqualFold(scheme, "Bearer") ||
			subtle.ConstantTimeCompare(bytesview.Bytes(tok), e.token) != 1 {
			return RefusedToken
		}
	}
	return Admitted
}

func contains(ps []netip.Prefix, a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Proxies are the proxies trusted to say who their client is
// (-trusted-proxies): only a request that reaches dspd through one of them
// is taken to come from the address its X-Forwarded-For names.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of CIDRs ("" is none).
func ParseProxies(s string) (Proxies, error) {
	var out Proxies
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := parseCIDR(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxies: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Client returns the address a bid request comes from: the connection's
// peer, unless the peer is a trusted proxy, in which case the
// X-Forwarded-For chain is read from the right, past the trusted proxies,
// and its first other entry is the client (entries further left were
// written by the client itself and prove nothing). An entry that is not an
// address gives the zero address, which no allow list holds.
func (p Proxies) Client(peer netip.Addr, forwardedFor []string) netip.Addr {
	peer = peer.Unmap()
	if len(p) == 0 || !contains(p, peer) {
		return peer
	}
	for i := len(forwardedFor) - 1; i >= 0; i-- {
		hops := strings.Split(forwardedFor[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			hop := strings.TrimSpace(hops[j])
			if hop == "" {
				continue
			}
			a, err := netip.ParseAddr(hop)
			if err != nil {
				return netip.Addr{}
			}
			if a = a.Unmap(); !contains(p, a) {
				return a
			}
			peer = a // a trusted proxy: look further left
		}
	}
	return peer // every hop a trusted proxy
}
