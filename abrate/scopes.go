package abrate

import "fmt"

// noFigures is the view of templates that no figure may appear in.
func (r *runner) noFigures() view {
	return view{runs: r.runs, where: "before the servers start", dry: r.dry,
		scope: func(string) (Sample, bool) { return Sample{}, false }}
}

// before is the view of phase i's set, args and url: the medians of the
// phases before it.
func (r *runner) before(i int) view {
	keys := map[string]bool{}
	for _, p := range r.d.Phases[:i] {
		for _, run := range p.Runs {
			keys[run.Key] = true
		}
	}
	return r.medians(keys, fmt.Sprintf("by the phases before %q", r.d.Phases[i].Name))
}

// medians is the view of the medians of the keys (all when nil).
func (r *runner) medians(keys map[string]bool, where string) view {
	return view{runs: r.runs, where: where, dry: r.dry, scope: func(key string) (Sample, bool) {
		if keys != nil && !keys[key] {
			return Sample{}, false
		}
		return r.rec.median(key)
	}}
}

// thisRound is the view of a progress line: the round's samples so far.
func (r *runner) thisRound(this map[string]Sample) view {
	return view{runs: r.runs, where: "in this round before this line", dry: r.dry, scope: func(key string) (Sample, bool) {
		s, ok := this[key]
		return s, ok
	}}
}
