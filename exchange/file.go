package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/recbid/dspd/bidder"
	"github.com/recbid/dspd/internal/bounded"
	"github.com/recbid/dspd/internal/problems"
)

// DefaultID is the id of the implicit exchange of a server without an
// exchanges file, and of the exchange whose paths are the bare ones
// (/dsp/recbid, /openrtb2/bid, /dsp/win): the domain's
// bidder.DefaultExchange, which is where it is defined.
const DefaultID = bidder.DefaultExchange

// DefaultPriceMacro is the macro an exchange fills in with the clearing
// price, unless its entry names another.
const DefaultPriceMacro = "${AUCTION_PRICE}"

// Limits of an exchanges file.
const (
	MaxFileBytes  = 1 << 20
	maxExchanges  = 1000
	maxAllow      = 1000
	minTokenBytes = 16
	maxTokenBytes = 256
	maxMacroBytes = 64
)

// ErrInvalidExchanges is the cause of every error that rejects an exchanges
// file; the *problems.Error that wraps it names each problem.
var ErrInvalidExchanges = errors.New("invalid exchanges file")

// Set is the exchanges a server trades with, immutable; a reload builds a
// new one.
type Set struct {
	list     []*Exchange // in file order
	byID     map[string]*Exchange
	implicit bool
}

// Implicit returns the set of a server without an exchanges file: one open
// exchange, DefaultID, with clear prices, on the bare paths (contract
// version 1's behaviour, for development and the 2016 comparison).
func Implicit() *Set {
	e := &Exchange{ID: DefaultID, Pricing: ClearPricing(), PriceMacro: DefaultPriceMacro}
	return &Set{list: []*Exchange{e}, byID: map[string]*Exchange{DefaultID: e}, implicit: true}
}

// IsImplicit reports whether the set is Implicit's.
func (s *Set) IsImplicit() bool { return s.implicit }

// Get returns the exchange of an id, or nil.
func (s *Set) Get(id string) *Exchange { return s.byID[id] }

// All returns the exchanges in file order; the slice must not be modified.
func (s *Set) All() []*Exchange { return s.list }

// IDs returns the exchanges' ids in file order.
func (s *Set) IDs() []string {
	ids := make([]string, len(s.list))
	for i, e := range s.list {
		ids[i] = e.ID
	}
	return ids
}

// Len returns the number of exchanges.
func (s *Set) Len() int { return len(s.list) }

// Load reads and validates an exchanges file. A file with any error is
// rejected whole: the error is a *problems.Error naming every problem, or an
// I/O error.
func Load(path string) (*Set, error) {
	data, err := bounded.ReadFile(path, MaxFileBytes)
	switch {
	case errors.Is(err, bounded.ErrTooLarge):
		return nil, problems.New(ErrInvalidExchanges, fmt.Sprintf("file is larger than %d bytes", MaxFileBytes))
	case err != nil:
		return nil, fmt.Errorf("exchanges: %w", err)
	}
	return Parse(data)
}

// Parse validates the JSON text of an exchanges file:
//
//	{"exchanges": [
//	  {"id": "adx", "allow": ["203.0.113.0/24"], "token": "…",
//	   "price": {"encoding": "hmac-sha1", "e_key": "…", "i_key": "…", "unit": "cpm_micros"}},
//	  {"id": "ox", "price": {"encoding": "clear"}, "price_macro": "${AUCTION_PRICE}"}
//	]}
func Parse(data []byte) (*Set, error) {
	var top map[string]json.RawMessage
	if err := strictUnmarshal(data, &top); err != nil {
		return nil, problems.New(ErrInvalidExchanges, "not an exchanges file: "+err.Error())
	}
	var v faults
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if k != "exchanges" {
			v.add("", "unknown key "+strconv.Quote(k))
		}
	}
	var raws []json.RawMessage
	if raw, ok := top["exchanges"]; !ok || string(raw) == "null" {
		v.add("", `no "exchanges" list`)
	} else if err := strictUnmarshal(raw, &raws); err != nil {
		v.add("", `"exchanges" must be a list: `+err.Error())
	}
	switch {
	case len(top["exchanges"]) > 0 && len(raws) == 0 && len(v) == 0:
		v.add("", "at least one exchange is required")
	case len(raws) > maxExchanges:
		v.add("", fmt.Sprintf("at most %d exchanges", maxExchanges))
		raws = raws[:maxExchanges]
	}
	set := &Set{byID: make(map[string]*Exchange, len(raws))}
	for i, raw := range raws {
		e, errs := parseExchange(raw)
		name := fmt.Sprintf("#%d", i)
		if e != nil && validID(e.ID) {
			name = e.ID
		}
		for _, p := range errs {
			v = append(v, "exchange "+name+": "+p)
		}
		if e == nil || len(errs) > 0 {
			continue
		}
		if _, dup := set.byID[e.ID]; dup {
			v = append(v, "exchange "+name+": id: duplicate")
			continue
		}
		set.byID[e.ID] = e
		set.list = append(set.list, e)
	}
	if len(v) > 0 {
		return nil, problems.New(ErrInvalidExchanges, v...)
	}
	return set, nil
}

// fileExchange is an exchange as the file spells it.
type fileExchange struct {
	ID         string     `json:"id"`
	Allow      []string   `json:"allow"`
	Token      *string    `json:"token"`
	Price      *filePrice `json:"price"`
	PriceMacro *string    `json:"price_macro"`
}

type filePrice struct {
	Encoding string  `json:"encoding"`
	EKey     *string `json:"e_key"`
	IKey     *string `json:"i_key"`
	Unit     *string `json:"unit"`
}

func parseExchange(raw json.RawMessage) (*Exchange, faults) {
	var fe fileExchange
	var v faults
	if err := strictUnmarshal(raw, &fe); err != nil {
		v.add("", err.Error())
		return nil, v
	}
	e := &Exchange{ID: fe.ID, PriceMacro: DefaultPriceMacro}
	if !validID(fe.ID) {
		v.add("id", "must be 1–32 of a-z, 0-9, _ and -")
	}
	switch {
	case fe.Allow == nil:
	case len(fe.Allow) == 0:
		v.add("allow", "at least one CIDR (leave allow out to admit any source)")
	case len(fe.Allow) > maxAllow:
		v.add("allow", fmt.Sprintf("at most %d entries", maxAllow))
	}
	for i, s := range fe.Allow {
		p, err := parseCIDR(s)
		if err != nil {
			v.add(fmt.Sprintf("allow[%d]", i), err.Error())
			continue
		}
		e.allow = append(e.allow, p)
	}
	if fe.Token != nil {
		t := *fe.Token
		if len(t) < minTokenBytes || len(t) > maxTokenBytes || !isTokenText(t) {
			v.add("token", fmt.Sprintf("must be %d–%d printable ASCII characters without spaces", minTokenBytes, maxTokenBytes))
		}
		e.token = []byte(t)
	}
	if fe.PriceMacro != nil {
		m := *fe.PriceMacro
		if m == "" || len(m) > maxMacroBytes || strings.ContainsAny(m, "\"\\&#") || !isTokenText(m) {
			v.add("price_macro", fmt.Sprintf(`must be 1–%d printable ASCII characters without spaces, '"', '\', '&' or '#'`, maxMacroBytes))
		}
		e.PriceMacro = m
	}
	e.Pricing = v.pricing(fe.Price)
	return e, v
}

func (v *faults) pricing(fp *filePrice) *Pricing {
	if fp == nil {
		v.add("price", `required: {"encoding":"clear"} for decimal prices, or the hmac-sha1 keys`)
		return nil
	}
	switch fp.Encoding {
	case "clear":
		if fp.EKey != nil || fp.IKey != nil || fp.Unit != nil {
			v.add("price", `e_key, i_key and unit are only for "hmac-sha1"`)
		}
		return ClearPricing()
	case "hmac-sha1":
		e := v.key("price.e_key", fp.EKey)
		i := v.key("price.i_key", fp.IKey)
		cpi := false
		switch {
		case fp.Unit == nil:
			v.add("price.unit", `required: "cpm_micros" or "cpi_micros"`)
		case *fp.Unit == unitCPIMicros:
			cpi = true
		case *fp.Unit != unitCPMMicros:
			v.add("price.unit", `must be "cpm_micros" or "cpi_micros"`)
		}
		if e == nil || i == nil {
			return nil
		}
		p, _ := EncryptedPricing(e, i, cpi) // the lengths are checked
		return p
	case "":
		v.add("price.encoding", `required: "clear" or "hmac-sha1"`)
	default:
		v.add("price.encoding", `must be "clear" or "hmac-sha1"`)
	}
	return nil
}

// key decodes a 32-byte key in web-safe base64, padded or not.
func (v *faults) key(field string, s *string) []byte {
	if s == nil || *s == "" {
		v.add(field, "required")
		return nil
	}
	k := make([]byte, KeyBytes)
	if decodeBase64(k, []byte(*s)) != nil {
		v.add(field, fmt.Sprintf("must be %d bytes in web-safe base64", KeyBytes))
		return nil
	}
	return k
}

// parseCIDR reads a CIDR ("203.0.113.0/24", "2001:db8::/32"); its address
// must be the network's first.
func parseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not a CIDR such as 203.0.113.0/24", s)
	}
	if p != p.Masked() {
		return netip.Prefix{}, fmt.Errorf("%q has host bits set (did you mean %s?)", s, p.Masked())
	}
	return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-unmapBits(p.Addr())), nil
}

// unmapBits is how many leading bits an IPv4-mapped IPv6 prefix loses when
// unmapped to IPv4.
func unmapBits(a netip.Addr) int {
	if a.Is4In6() {
		return 96
	}
	return 0
}

func validID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isTokenText reports whether s is printable ASCII without spaces.
func isTokenText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// strictUnmarshal decodes JSON that must have no unknown keys and nothing
// after the value.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("text after the JSON value")
	}
	return nil
}

// faults collects "field: message" lines.
type faults []string

func (v *faults) add(field, msg string) {
	if field == "" {
		*v = append(*v, msg)
		return
	}
	*v = append(*v, field+": "+msg)
}
