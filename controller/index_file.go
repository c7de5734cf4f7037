package controller

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/daokit/daokit/ledger"
)

// The files of the instruction index, under state/index/.
const (
	// indexDir is the index's folder inside state/.
	indexDir = "index"
	// indexCheckpointFile holds the open instructions and the events.jsonl
	// offset they are true at; it is replaced atomically.
	indexCheckpointFile = "checkpoint.json"
	// indexBuckets is how many append-only files the acknowledgements are
	// spread over by a hash of the message id, so that looking one up
	// reads 1/256 of them.
	indexBuckets = 256
	indexVersion = 1
	// checkpointEvery is how many events the journal appends between two
	// checkpoints: about the most a start replays (a few MB).
	checkpointEvery = 8192
)

// indexCheckpoint is the content of checkpoint.json.
type indexCheckpoint struct {
	Version      int          `json:"version"`
	EventsOffset int64        `json:"events_offset"`
	Generation   int          `json:"generation"`
	Seq          int64        `json:"seq"`
	Open         []indexEntry `json:"open"`
	// Ended are the runs that finished FAILED or BLOCKED, newest last,
	// kept for a retry after a restart.
	Ended []indexEntry `json:"ended,omitempty"`
}

func bucketName(id string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return fmt.Sprintf("acks-%02x.jsonl", h.Sum32()%indexBuckets)
}

// readBucket finds id's entry in its bucket. A torn last line (a crash
// during an append) is skipped; the checkpoint that would have covered it
// was never written, so replay appends it again.
func readBucket(dir, id string) (indexEntry, bool, error) {
	data, err := ledger.ReadFile(filepath.Join(dir, bucketName(id)), maxBucketBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return indexEntry{}, false, nil
	}
	if err != nil {
		return indexEntry{}, false, fmt.Errorf("read instruction index: %w", err)
	}
	needle := []byte(id)
	for line := range bytes.Lines(data) {
		if !bytes.Contains(line, needle) {
			continue
		}
		var en indexEntry
		if json.Unmarshal(line, &en) == nil && en.MessageID == id {
			return en, true, nil
		}
	}
	return indexEntry{}, false, nil
}

// indexSnapshot is what one checkpoint writes: checkpoint.json's content,
// the acknowledgements it moves into their buckets, and how many folded
// events it covers.
type indexSnapshot struct {
	file     indexCheckpoint
	byBucket map[string][]indexEntry
	folded   int
}

// snapshot copies what a checkpoint writes, so that it can be written
// without the index (see indexer.checkpoint).
func (x *instrIndex) snapshot() indexSnapshot {
	cp := indexSnapshot{folded: x.folded, byBucket: map[string][]indexEntry{}, file: indexCheckpoint{Version: indexVersion,
		EventsOffset: x.offset, Generation: x.generation, Seq: x.seq, Open: make([]indexEntry, 0, len(x.open))}}
	for _, en := range x.open {
		cp.file.Open = append(cp.file.Open, *en)
	}
	for _, en := range x.ended {
		cp.file.Ended = append(cp.file.Ended, *en)
	}
	for _, en := range x.fresh {
		cp.byBucket[bucketName(en.MessageID)] = append(cp.byBucket[bucketName(en.MessageID)], en)
	}
	return cp
}

// checkpointed forgets what the written snapshot cp moved into buckets:
// until then lookups found it in fresh, from now on in its bucket.
func (x *instrIndex) checkpointed(cp indexSnapshot) {
	for _, entries := range cp.byBucket {
		for _, en := range entries {
			delete(x.fresh, en.MessageID)
		}
	}
	x.folded -= cp.folded
}

// write appends the snapshot's acknowledgements to their buckets, synced,
// then replaces checkpoint.json in dir.
func (cp indexSnapshot) write(dir string) error {
	slices.SortFunc(cp.file.Open, func(a, b indexEntry) int { return int(a.Seq - b.Seq) })
	slices.SortFunc(cp.file.Ended, func(a, b indexEntry) int { return int(a.Seq - b.Seq) })
	created := false
	for name, entries := range cp.byBucket {
		slices.SortFunc(entries, func(a, b indexEntry) int { return int(a.Seq - b.Seq) })
		isNew, err := appendBucket(filepath.Join(dir, name), entries)
		if err != nil {
			return err
		}
		created = created || isNew
	}
	if created {
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	data, err := json.Marshal(cp.file)
	if err != nil {
		return fmt.Errorf("encode index checkpoint: %w", err)
	}
	if err := ledger.ReplaceFile(dir, indexCheckpointFile, data); err != nil {
		return fmt.Errorf("write index checkpoint: %w", err)
	}
	return nil
}

// maxBucketBytes bounds what readBucket loads of one acknowledgement
// bucket (1/256 of every acknowledgement ever made).
const maxBucketBytes = 1 << 30

func appendBucket(path string, entries []indexEntry) (created bool, err error) {
	_, statErr := os.Lstat(path)
	// Never through a link or into a FIFO planted in state/index/.
	f, err := ledger.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false, fmt.Errorf("write instruction index: %w", err)
	}
	var buf bytes.Buffer
	for _, en := range entries {
		line, err := json.Marshal(en)
		if err != nil {
			f.Close()
			return false, fmt.Errorf("encode index entry: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if _, err = f.Write(buf.Bytes()); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("write instruction index: %w", err)
	}
	return errors.Is(statErr, fs.ErrNotExist), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// due reports whether enough events were folded to checkpoint.
func (x *instrIndex) due() bool {
	return x.folded >= checkpointEvery
}

// indexLoad says what loading the index did, for the log.
type indexLoad struct {
	Replayed int   // events read after the checkpoint
	From     int64 // the offset the replay started at
	Rebuilt  bool  // no usable checkpoint: the whole log was read
}

// loadIndex reads the checkpoint and replays the events appended after
// it. A missing or unusable checkpoint (or a log shorter than it says)
// means reading the whole log once: the index is derived, the log is the
// truth. An error reading the log is returned: the controller must not
// start work on a history it could not read.
func loadIndex(stateDir string) (*instrIndex, indexLoad, error) {
	dir := filepath.Join(stateDir, indexDir)
	d, err := ledger.OpenDir(stateDir, indexDir, true) // refuses a link in place of index/
	if err != nil {
		return nil, indexLoad{}, fmt.Errorf("create instruction index: %w", err)
	}
	_ = d.Close()
	if names, err := os.ReadDir(dir); err == nil {
		for _, n := range names {
			if ledger.IsTempName(n.Name()) {
				_ = os.Remove(filepath.Join(dir, n.Name()))
			}
		}
	}
	x := newInstrIndex(dir)
	var load indexLoad
	data, err := ledger.ReadFile(filepath.Join(dir, indexCheckpointFile), ledger.MaxDocumentBytes)
	var cp indexCheckpoint
	switch {
	case errors.Is(err, fs.ErrNotExist):
		load.Rebuilt = true
	case err != nil:
		return nil, load, &StateUnreadableError{File: filepath.Join(dir, indexCheckpointFile), Err: err}
	case json.Unmarshal(data, &cp) != nil || cp.Version != indexVersion:
		load.Rebuilt = true
		cp = indexCheckpoint{}
	}
	events := filepath.Join(stateDir, ledger.EventsFile)
	st, err := os.Stat(events)
	if err != nil {
		return nil, load, &StateUnreadableError{File: events, Err: err}
	}
	if st.Size() < cp.EventsOffset {
		load.Rebuilt, cp = true, indexCheckpoint{}
	}
	x.offset, x.generation, x.seq = cp.EventsOffset, cp.Generation, cp.Seq
	for _, en := range cp.Open {
		e := en
		x.open[e.MessageID] = &e
		x.byRun[[2]string{e.Route.TaskID, e.Route.RunID}] = e.MessageID
	}
	for _, en := range cp.Ended {
		e := en
		x.ended[e.MessageID] = &e
	}
	load.From = x.offset
	n, end, err := replay(events, x.offset, x.fold)
	if err != nil {
		return nil, load, &StateUnreadableError{File: events, Err: err}
	}
	load.Replayed = n
	x.offset = end
	return x, load, nil
}

// indexMarkers pick the lines worth decoding during a replay: every
// event the fold uses names one of them.
var indexMarkers = [][]byte{[]byte(opInstruction), []byte(opControl), []byte(opRunFinished),
	[]byte(opControllerStarted), []byte(ledger.EventStepStarted), []byte(ledger.EventStepCompleted), []byte(opStepRecorded),
	[]byte(OpReviewPending), []byte(ledger.EventAcceptancePassed), []byte(ledger.EventAcceptanceFailed), []byte(OpWorktreeReady),
	[]byte(OpPullRequest)}

// replay folds every complete line of the log from offset on and returns
// how many events it read and the offset after the last complete line.
func replay(path string, offset int64, fold func(*ledger.Event)) (int, int64, error) {
	f, err := ledger.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return 0, offset, fmt.Errorf("read %s: %w", ledger.EventsFile, err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return 0, offset, fmt.Errorf("read %s: %w", ledger.EventsFile, err)
	}
	return replayLines(f, offset, fold, 1<<20, ledger.MaxLineBytes)
}

// replayLines is replay over the log's bytes from offset on, read through
// a buffer of bufSize bytes, holding lines of up to maxLine bytes (the
// tests make both small).
func replayLines(src io.Reader, offset int64, fold func(*ledger.Event), bufSize int, maxLine int64) (int, int64, error) {
	r := bufio.NewReaderSize(src, bufSize)
	n := 0
	var long []byte // a line longer than r's buffer, gathered
	for {
		line, err := r.ReadSlice('\n')
		size := int64(len(line))
		if errors.Is(err, bufio.ErrBufferFull) {
			// An instruction's text makes its line as long as the relay
			// lets it be (about 3 MiB of escaped text for a 1 MiB
			// protocol line), and an acknowledged instruction must be
			// found again after a crash. Lines up to the store's cap are
			// gathered; a longer one is no event daokit wrote (the
			// store refuses it before acknowledging anything), and is
			// skipped without being held.
			long = append(long[:0], line...)
			fits := true
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				size += int64(len(line))
				if fits = fits && size <= maxLine; fits {
					long = append(long, line...)
				}
			}
			if !fits && err == nil {
				offset += size
				continue
			}
			line = long
		}
		if errors.Is(err, io.EOF) {
			return n, offset, nil // a partial last line is not an event yet
		}
		if err != nil {
			return n, offset, fmt.Errorf("read %s: %w", ledger.EventsFile, err)
		}
		offset += size
		if !slices.ContainsFunc(indexMarkers, func(m []byte) bool { return bytes.Contains(line, m) }) {
			continue
		}
		e, perr := ledger.ParseEvent(bytes.TrimSpace(line))
		if perr != nil {
			continue // a bad line is the readers' business, not the index's
		}
		n++
		fold(&e)
	}
}
