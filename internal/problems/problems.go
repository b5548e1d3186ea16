// Package problems is the error the operator files' loaders (campaigns,
// exchanges, currency rates) return when they reject a file: every problem
// found in it, named at once, so that an operator mends them in one pass.
package problems

import (
	"fmt"
	"strings"
)

// shown is how many problems Error's text names; the rest are counted.
const shown = 50

// Error lists every problem found in one file. Kind is the file's own
// sentinel (bidder.ErrInvalidCatalog, exchange.ErrInvalidExchanges,
// currency.ErrInvalidRates), so that errors.Is tells the files apart.
type Error struct {
	Kind     error
	Problems []string
}

// New returns the error of a file of kind with the given problems.
func New(kind error, problems ...string) *Error {
	return &Error{Kind: kind, Problems: problems}
}

// Error names the first problems, in order, and counts the others.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s): ", len(e.Problems))
	for i, p := range e.Problems {
		if i == shown {
			fmt.Fprintf(&b, "; … and %d more", len(e.Problems)-shown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, e.Kind) hold.
func (e *Error) Unwrap() error { return e.Kind }
