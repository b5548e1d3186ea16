package disk

import "os"

// abandon stops the store's background work and leaves its database as a
// crash would: open, with whatever it had not synced.
func (s *Store) abandon() { close(s.stop) }

func osGetpid() int { return os.Getpid() }
