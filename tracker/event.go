package tracker

// Event is what a tracking URL reports.
type Event uint8

// The events a tracking URL may report. Each is recorded at most once per
// bid.
const (
	Impression    Event = iota + 1 // the ad rendered (the pixel, or VAST's <Impression>)
	Click                          // the click-through
	Start                          // video: playback started
	FirstQuartile                  // video: a quarter played
	Midpoint                       // video: half played
	ThirdQuartile                  // video: three quarters played
	Complete                       // video: played to the end
	Error                          // video: the player could not play the ad (VAST's <Error>)

	numEvents
)

var eventNames = [numEvents]string{"", "impression", "click", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "error"}

// String returns the event's name, as the event log's type and VAST's
// tracking event spell it.
func (e Event) String() string {
	if e < numEvents {
		return eventNames[e]
	}
	return "unknown"
}

// ParseEvent returns the event a name spells, or false.
func ParseEvent(name string) (Event, bool) {
	for e := Impression; e < numEvents; e++ {
		if eventNames[e] == name {
			return e, true
		}
	}
	return 0, false
}

// Events lists every event.
func Events() []Event {
	out := make([]Event, 0, numEvents-1)
	for e := Impression; e < numEvents; e++ {
		out = append(out, e)
	}
	return out
}

// VideoEvents lists the video progress events, in playing order.
func VideoEvents() []Event { return []Event{Start, FirstQuartile, Midpoint, ThirdQuartile, Complete} }

// Video reports whether e is reported on the video path (/dsp/video): the
// progress events and the error.
func (e Event) Video() bool { return e >= Start && e < numEvents }
