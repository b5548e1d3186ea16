package bidder

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Limits of the deals and of the creatives' texts (contract version 3).
const (
	maxDeals       = 256
	maxTitle       = 140
	maxBody        = 500
	maxSponsored   = 64
	maxCTA         = 32
	maxDurationS   = 3600
	maxBitrateKbps = 100000
)

// vastVersions are the VAST versions a video creative may name.
var vastVersions = []string{"2.0", "3.0", "4.0", "4.1", "4.2"}

// creative checks one creative of the campaigns file by the rules of its
// type (banner, video or native), naming every problem, a field of another
// type included (a typo must not pass silently).
func (v *faults) creative(p string, f *fileCreative) Creative {
	cr := Creative{ID: f.ID, Secure: f.Secure, ClickURL: f.ClickURL}
	switch f.Type {
	case "", "banner":
		cr.Kind = Banner
	case "video":
		cr.Kind = Video
	case "native":
		cr.Kind = Native
	default:
		v.add(p+"type", `must be "banner", "video" or "native"`)
		return cr
	}
	v.url(p+"click_url", f.ClickURL, f.Secure)
	switch cr.Kind {
	case Banner:
		cr.W = int(v.integer(p+"w", f.W, 1, 10000))
		cr.H = int(v.integer(p+"h", f.H, 1, 10000))
		cr.ImageURL = v.urlField(p+"image_url", f.ImageURL, f.Secure)
		v.only(p, "video", f.videoFields())
		v.only(p, "native", f.nativeFields())
	case Video:
		cr.W = int(v.integer(p+"w", f.W, 1, 10000))
		cr.H = int(v.integer(p+"h", f.H, 1, 10000))
		cr.DurationS = int(v.integer(p+"duration_s", f.DurationS, 1, maxDurationS))
		cr.Mime = v.mediaType(p+"mime", f.Mime)
		cr.MediaURL = v.urlField(p+"media_url", f.MediaURL, f.Secure)
		cr.BitrateKbps = int(v.integer(p+"bitrate_kbps", f.BitrateKbps, 1, maxBitrateKbps))
		cr.VASTVersion = DefaultVASTVersion
		if f.VASTVersion != nil {
			cr.VASTVersion = *f.VASTVersion
			if !slices.Contains(vastVersions, cr.VASTVersion) {
				v.add(p+"vast_version", `must be "2.0", "3.0", "4.0", "4.1" or "4.2"`)
			}
		}
		if f.ImageURL != nil {
			v.add(p+"image_url", "only on banner and native creatives")
		}
		v.only(p, "native", f.nativeFields())
	case Native:
		cr.Title = v.text(p+"title", f.Title, 1, maxTitle)
		cr.Body = v.text(p+"body", f.Body, 0, maxBody)
		cr.Sponsored = v.text(p+"sponsored", f.Sponsored, 1, maxSponsored)
		cr.CTA = v.text(p+"cta", f.CTA, 0, maxCTA)
		cr.ImageURL = v.urlField(p+"image_url", f.ImageURL, f.Secure)
		cr.ImageW = int(v.integer(p+"image_w", f.ImageW, 1, 10000))
		cr.ImageH = int(v.integer(p+"image_h", f.ImageH, 1, 10000))
		if f.IconURL != nil {
			cr.IconURL = v.urlField(p+"icon_url", f.IconURL, f.Secure)
			cr.IconW = int(v.integer(p+"icon_w", f.IconW, 1, 10000))
			cr.IconH = int(v.integer(p+"icon_h", f.IconH, 1, 10000))
		} else {
			v.absent(p+"icon_w", f.IconW, "only with icon_url")
			v.absent(p+"icon_h", f.IconH, "only with icon_url")
		}
		v.absent(p+"w", f.W, "only on banner and video creatives")
		v.absent(p+"h", f.H, "only on banner and video creatives")
		v.only(p, "video", f.videoFields())
	}
	return cr
}

// videoFields and nativeFields name the fields of one type a creative of
// another type has (in the file's order, so that problems come in a
// stable order).
func (f *fileCreative) videoFields() []string {
	var out []string
	for _, x := range []struct {
		name string
		set  bool
	}{{"duration_s", present(f.DurationS)}, {"mime", f.Mime != nil}, {"media_url", f.MediaURL != nil},
		{"bitrate_kbps", present(f.BitrateKbps)}, {"vast_version", f.VASTVersion != nil}} {
		if x.set {
			out = append(out, x.name)
		}
	}
	return out
}

func (f *fileCreative) nativeFields() []string {
	var out []string
	for _, x := range []struct {
		name string
		set  bool
	}{{"title", f.Title != nil}, {"body", f.Body != nil}, {"sponsored", f.Sponsored != nil}, {"cta", f.CTA != nil},
		{"image_w", present(f.ImageW)}, {"image_h", present(f.ImageH)}, {"icon_url", f.IconURL != nil},
		{"icon_w", present(f.IconW)}, {"icon_h", present(f.IconH)}} {
		if x.set {
			out = append(out, x.name)
		}
	}
	return out
}

// only names each field of another type's creatives.
func (v *faults) only(p, kind string, fields []string) {
	for _, name := range fields {
		v.add(p+name, "only on "+kind+" creatives")
	}
}

// absent names a number field that must not be there.
func (v *faults) absent(field string, raw rawNumber, msg string) {
	if present(raw) {
		v.add(field, msg)
	}
}

// present reports whether a number field is in the file.
func present(raw rawNumber) bool { return raw != "" && raw != "null" }

// urlField checks a required URL field (url's rules).
func (v *faults) urlField(field string, s *string, secure bool) string {
	if s == nil {
		v.add(field, "required")
		return ""
	}
	v.url(field, *s, secure)
	return *s
}

// text checks a text of lo–hi bytes (lo 0: it may be absent or empty).
func (v *faults) text(field string, s *string, lo, hi int) string {
	switch {
	case s == nil && lo > 0:
		v.add(field, "required")
		return ""
	case s == nil:
		return ""
	case len(*s) < lo || len(*s) > hi:
		v.add(field, fmt.Sprintf("must be %d–%d bytes", lo, hi))
	}
	return *s
}

// mediaType checks a media type: type/subtype, each a token (RFC 6838).
func (v *faults) mediaType(field string, s *string) string {
	if s == nil || *s == "" {
		v.add(field, "required")
		return ""
	}
	typ, sub, ok := strings.Cut(*s, "/")
	if !ok || typ == "" || sub == "" || !isMediaToken(typ) || !isMediaToken(sub) {
		v.add(field, "must be a media type such as video/mp4")
	}
	return *s
}

// isMediaToken accepts the characters of a media type's name (RFC 6838
// section 4.2).
func isMediaToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !IsAlnum(c) && c != '!' && c != '#' && c != '$' && c != '&' && c != '-' && c != '^' && c != '_' && c != '.' && c != '+' {
			return false
		}
	}
	return len(s) <= 127
}

// deals checks a campaign's deal ids: 1–64 printable ASCII each, unique, at
// most 256.
func (v *faults) deals(list []string) []string {
	if len(list) > maxDeals {
		v.add("deals", fmt.Sprintf("at most %d deals", maxDeals))
		return nil
	}
	seen := make(map[string]bool, len(list))
	for i, d := range list {
		f := fmt.Sprintf("deals[%d]", i)
		switch {
		case d == "" || len(d) > 64 || !IsPrintableASCII(d):
			v.add(f, "must be 1–64 printable ASCII characters")
		case seen[d]:
			v.add(f, "duplicate deal "+strconv.Quote(d))
		}
		seen[d] = true
	}
	return list
}
