package events

import "sync/atomic"

// stats are the log's counters, read by the server's metrics.
type stats struct {
	records    [numTypes]atomic.Int64
	bytes      atomic.Int64
	syncs      atomic.Int64
	refused    atomic.Int64
	finished   atomic.Int64
	compressed atomic.Int64
	deleted    atomic.Int64
	dirBytes   atomic.Int64
	spoolBytes atomic.Int64
}

// Stats is what the log has done since it opened.
type Stats struct {
	Records     map[string]int64 // records written (synced), by type
	Bytes       int64            // bytes written
	Syncs       int64            // fsyncs
	Refused     int64            // records refused because too many waited
	Finished    int64            // segments finished
	Compressed  int64            // segments compressed
	Deleted     int64            // segments deleted by the retention
	DirBytes    int64            // the segments' bytes on disk (as of the last retention pass)
	SpoolBytes  int64            // of them, the bytes not wholly shipped
	DiskFull    int64            // writes that found the disk full
	Unavailable bool
}

// Stats returns the log's counters.
func (l *Log) Stats() Stats {
	s := Stats{Records: make(map[string]int64, numTypes-1), Bytes: l.st.bytes.Load(), Syncs: l.st.syncs.Load(),
		Refused: l.st.refused.Load(), Finished: l.st.finished.Load(), Compressed: l.st.compressed.Load(),
		Deleted: l.st.deleted.Load(), DirBytes: l.st.dirBytes.Load(), SpoolBytes: l.st.spoolBytes.Load(),
		DiskFull: l.full.Load(), Unavailable: l.Unavailable()}
	for _, t := range Types() {
		s.Records[t.String()] = l.st.records[t].Load()
	}
	return s
}
