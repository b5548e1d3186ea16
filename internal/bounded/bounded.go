// Package bounded reads operator files (campaigns, exchanges, currency
// rates) whole, with a limit on their size, so that a wrong path (a log, a
// device) cannot take the server's memory at start or on reload.
package bounded

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// ErrTooLarge is the cause of the error ReadFile returns for a file over
// its limit.
var ErrTooLarge = errors.New("file too large")

// chunk is the piece a file of unknown size (a device, a pipe) is read in:
// the pieces are joined once the end is seen within the limit, so that
// what is held while reading is never more than the limit and a piece.
const chunk = 1 << 20

// ReadFile reads the file at path, failing with an error wrapping
// ErrTooLarge when it holds more than limit bytes, and with the I/O error
// otherwise. A regular file larger than limit is refused by its size,
// unread, and a smaller one read into one buffer of its size; any other
// file is read counting, in pieces that never add up to more than limit
// plus one piece.
func ReadFile(path string, limit int64) ([]byte, error) {
	limit = min(max(limit, 0), math.MaxInt64-1) // limit+1 below must not overflow
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, fmt.Errorf("%w: %d bytes, larger than %d", ErrTooLarge, st.Size(), limit)
	}
	next := int64(chunk)
	if st.Mode().IsRegular() {
		next = st.Size() + 1 // one piece: the file, and room to see its end (or that it grew)
	}
	var pieces [][]byte
	var total int64
	for ; ; next = chunk {
		piece := make([]byte, min(next, limit+1-total))
		n, err := io.ReadFull(f, piece)
		total += int64(n)
		pieces = append(pieces, piece[:n])
		switch {
		case total > limit:
			return nil, fmt.Errorf("%w: larger than %d bytes", ErrTooLarge, limit)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			if len(pieces) == 1 {
				return pieces[0], nil
			}
			return bytes.Join(pieces, nil), nil
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}
