package synth

import (
	"math/rand/v2"
	"strings"
)

// PCG stream selectors, one per generator, so that campaigns and requests drawn
// from the same seed are independent of each other.
const (
	campaignStream uint64 = 0x63616d7061696773 // "campaigs"
	requestStream  uint64 = 0x7265717565737473 // "requests"
)

// rng wraps a seeded *rand.Rand with the few helpers the generators need.
type rng struct {
	r *rand.Rand
}

func newRNG(seed, stream uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(seed, stream))}
}

// intn returns a uniform int in [0, n).
func (g *rng) intn(n int) int { return g.r.IntN(n) }

// between returns a uniform int in [lo, hi], both inclusive.
func (g *rng) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// between64 returns a uniform int64 in [lo, hi], both inclusive.
func (g *rng) between64(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

// chance reports true with probability permille/1000.
func (g *rng) chance(permille int) bool { return g.r.IntN(1000) < permille }

// weighted returns an index into ws, chosen with probability proportional to
// its weight.
func (g *rng) weighted(ws []int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	x := g.r.IntN(total)
	for i, w := range ws {
		if x < w {
			return i
		}
		x -= w
	}
	return len(ws) - 1
}

// hex returns n random lowercase hex digits.
func (g *rng) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

// chars returns n random characters from alphabet.
func (g *rng) chars(n int, alphabet string) string {
	var sb strings.Builder
	sb.Grow(n)
	for range n {
		sb.WriteByte(alphabet[g.r.IntN(len(alphabet))])
	}
	return sb.String()
}

// pick returns a uniformly chosen element of xs, which must not be empty.
func pick[T any](g *rng, xs []T) T { return xs[g.r.IntN(len(xs))] }

// sample returns k distinct elements of xs (k is clamped to len(xs)), in the
// order they have in xs, so that generated lists read naturally.
func sample[T any](g *rng, xs []T, k int) []T {
	if k > len(xs) {
		k = len(xs)
	}
	if k <= 0 {
		return nil
	}
	idx := g.r.Perm(len(xs))[:k]
	chosen := make([]bool, len(xs))
	for _, i := range idx {
		chosen[i] = true
	}
	out := make([]T, 0, k)
	for i, x := range xs {
		if chosen[i] {
			out = append(out, x)
		}
	}
	return out
}
