package api

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// The field policy of OpenRTB requests (docs/openrtb.md section 2): a field
// is required (a bad value is a 400), used (a bad value is treated as
// absent and counted), or ignored. usedField names the used fields whose
// bad values are counted, in dspd_openrtb_invalid_fields_total{field}.
type usedField uint8

const (
	fieldSite usedField = iota
	fieldSiteDomain
	fieldSitePage
	fieldSiteCat
	fieldApp
	fieldAppBundle
	fieldAppCat
	fieldDevice
	fieldDeviceOS
	fieldDeviceType
	fieldGeo
	fieldGeoCountry
	fieldGeoRegion
	fieldGeoCity
	fieldUser
	fieldUserID
	fieldBuyerUID
	fieldTMax
	fieldTest
	fieldBCat
	fieldBAdv
	fieldImps    // impressions beyond maxImps: not bid on
	fieldFormats // banner formats beyond maxFormats: not tried
	fieldSecure
	fieldPMP
	fieldRegs
	fieldGDPR
	fieldUSPrivacy
	fieldGPP
	fieldGPPSID
	fieldCOPPA
	fieldConsent
	fieldLMT
	fieldDNT
	fieldVideo
	fieldNative
	fieldDeals
	numUsedFields
)

// usedFieldNames are the metric's label values: the field's path without
// array indexes.
var usedFieldNames = [numUsedFields]string{
	"site", "site.domain", "site.page", "site.cat", "app", "app.bundle", "app.cat", "device", "device.os",
	"device.devicetype", "device.geo", "device.geo.country", "device.geo.region", "device.geo.city", "user",
	"user.id", "user.buyeruid", "tmax", "test", "bcat", "badv", "imp", "imp.banner.format", "imp.secure",
	"imp.pmp", "regs", "regs.gdpr", "regs.us_privacy", "regs.gpp", "regs.gpp_sid", "regs.coppa", "user.consent",
	"device.lmt", "device.dnt", "imp.video", "imp.native", "imp.pmp.deals",
}

// fieldSet holds one bit per usedField.
type fieldSet uint64

func (s fieldSet) has(f usedField) bool { return s&(1<<f) != 0 }

// maxExample bounds the value quoted in the log line of a bad field.
const maxExample = 64

// badExample is the first bad value of a request, kept for the log line
// that samples them (at most one a second).
type badExample struct {
	field fieldName
	value [maxExample]byte
	n     int  // bytes of value kept
	cut   bool // the value was longer
}

// quote returns the kept value as a Go-quoted string, marked when cut.
func (e *badExample) quote() string {
	q := strconv.Quote(string(e.value[:e.n]))
	if e.cut {
		q += "…"
	}
	return q
}

// newInvalidFieldCounters registers dspd_openrtb_invalid_fields_total and
// resolves one counter per used field.
func newInvalidFieldCounters(reg *prometheus.Registry) [numUsedFields]prometheus.Counter {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dspd_openrtb_invalid_fields_total",
		Help: "OpenRTB requests served although a used field was malformed or beyond dspd's limits, by field: " +
			"the value was treated as absent (docs/openrtb.md's field policy). Counted once per field and request.",
	}, []string{"field"})
	reg.MustRegister(v)
	var out [numUsedFields]prometheus.Counter
	for f := range out {
		out[f] = v.WithLabelValues(usedFieldNames[f])
	}
	return out
}

// noteInvalidFields counts a served request's bad used fields and logs the
// first one with its value, at most once a second over all requests.
func (s *Server) noteInvalidFields(req *openrtbRequest) {
	if req.invalid == 0 {
		return
	}
	for f := usedField(0); f < numUsedFields; f++ {
		if req.invalid.has(f) {
			s.metrics.openrtb.invalid[f].Inc()
		}
	}
	if ok, suppressed := s.invalidLog.allow(); ok {
		ex := &req.example
		s.invalidLog.log.Warn("openrtb: malformed optional fields treated as absent (a sample; see dspd_openrtb_invalid_fields_total)",
			"request", req.id, "field", ex.field.String(), "value", ex.quote(), "suppressed_since_last", suppressed)
	}
}
