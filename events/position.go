package events

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Shipped returns the position up to which the shipper has delivered the
// records (the zero Position when nothing was shipped).
func (l *Log) Shipped() Position {
	if p := l.shipped.Load(); p != nil {
		return *p
	}
	return Position{}
}

// SaveShipped durably records that the records before p are delivered: a
// restarted shipper continues from p, and retention may delete the
// segments before it. The file is written aside, synced and renamed into
// place, so that it is always whole.
func (l *Log) SaveShipped(p Position) error {
	path := filepath.Join(l.cfg.Dir, shippedName)
	tmp := path + extTmp
	data := []byte(strconv.FormatUint(p.Seq, 10) + " " + strconv.FormatInt(p.Offset, 10) + "\n")
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("events: shipped position: %w", err)
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(l.cfg.Dir)
	}
	if err != nil {
		return fmt.Errorf("events: shipped position: %w", err)
	}
	l.shipped.Store(&p)
	return nil
}

// loadShipped reads the shipping position a shipper saved.
func (l *Log) loadShipped() error {
	p, err := ReadShipped(l.cfg.Dir)
	if err != nil {
		return err
	}
	l.shipped.Store(&p)
	return nil
}

// ReadShipped reads the shipping position saved in dir (the zero Position
// when none was).
func ReadShipped(dir string) (Position, error) {
	b, err := os.ReadFile(filepath.Join(dir, shippedName))
	if errors.Is(err, os.ErrNotExist) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, fmt.Errorf("events: shipped position: %w", err)
	}
	seq, off, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	s, err1 := strconv.ParseUint(seq, 10, 64)
	o, err2 := strconv.ParseInt(off, 10, 64)
	if !ok || err1 != nil || err2 != nil || o < 0 {
		return Position{}, fmt.Errorf("events: shipped position %q is not \"SEQ OFFSET\"", b)
	}
	return Position{Seq: s, Offset: o}, nil
}
