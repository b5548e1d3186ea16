// Package bounded reads operator files (campaigns, exchanges, currency
// rates) whole, with a limit on their size, so that a wrong path (a log, a
// device) cannot take the server's memory at start or on reload.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is the cause of the error ReadFile returns for a file over
// its limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the file at path, failing with an error wrapping
// ErrTooLarge when it holds more than limit bytes (which it does not read
// past), and with the I/O error otherwise.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}
