package worker

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker/transcript"
)

// LogOffsets are the sizes of a step's stdout.log and stderr.log when an
// attempt started: its own output follows them.
type LogOffsets struct {
	Stdout, Stderr int64
}

// logOffsets reads the sizes of the artifact logs just opened (zero
// without an artifact folder).
func logOffsets(out, errLog *os.File) (LogOffsets, error) {
	var o LogOffsets
	for _, f := range []struct {
		file *os.File
		to   *int64
	}{{out, &o.Stdout}, {errLog, &o.Stderr}} {
		if f.file == nil {
			continue
		}
		st, err := f.file.Stat()
		if err != nil {
			return LogOffsets{}, err
		}
		*f.to = st.Size()
	}
	return o, nil
}

// Replayed is what an attempt's artifact logs say of it, read back.
type Replayed struct {
	Summary Summary
	Stats   Stats
	// Torn counts the bytes at the end of the logs that never got their
	// newline: a line cut off by the worker's or the controller's death.
	// They are not decoded.
	Torn int64
}

// ErrLogShrank is returned by Replay when a log is shorter than the
// offset the attempt started at: it is not the file the attempt wrote.
var ErrLogShrank = errors.New("worker: the log is shorter than where the attempt started")

// Replay reads back the output of the attempt that started at from, in
// the artifact logs of spec (its ArtifactDir, ArtifactRoot, Kind and
// LineLimit), and decodes each complete line exactly as the Process
// decoded it when it read the pipe, handing every Record to emit (stdout's
// lines, then stderr's). It is how a controller that took over from one
// that died learns what a worker that had already exited said: the
// controller that ran the worker wrote each byte to the log before it
// read the line, so a killed controller leaves every line it had read.
//
// Everything after from is the attempt's own: the logs only grow. A
// LogLimit cut punches out their head and keeps their length; reading
// starts past it, at the newest bytes, which are the attempt's (the first
// line after a cut may be partial and reads as plain text).
func Replay(spec Spec, from LogOffsets, emit func(transcript.Record)) (Replayed, error) {
	spec = spec.withDefaults()
	var out Replayed
	if spec.ArtifactDir == "" {
		return out, errors.New("worker: no artifact folder to replay")
	}
	dir, err := openArtifactDir(spec.ArtifactRoot, spec.ArtifactDir)
	if err != nil {
		return out, err
	}
	defer dir.Close()
	dec := transcript.NewDecoder(spec.Kind)
	for _, log := range []struct {
		name   string
		stream transcript.Stream
		from   int64
	}{{StdoutLog, transcript.Stdout, from.Stdout}, {StderrLog, transcript.Stderr, from.Stderr}} {
		torn, err := replayLog(dir, log.name, log.stream, log.from, spec, dec, &out, emit)
		if err != nil {
			return out, fmt.Errorf("replay %s: %w", log.name, err)
		}
		out.Torn += torn
	}
	return out, nil
}

// replayLog decodes one log from offset on and returns how many bytes
// of a last line without its newline it left alone.
func replayLog(dir *ledger.Dir, name string, stream transcript.Stream, offset int64, spec Spec, dec transcript.Decoder,
	out *Replayed, emit func(transcript.Record)) (int64, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() < offset {
		return 0, ErrLogShrank
	}
	if stream == transcript.Stdout {
		out.Stats.StdoutLogBytes = st.Size()
	} else {
		out.Stats.StderrLogBytes = st.Size()
	}
	sp := splitter{limit: spec.readLimit()}
	line := func(b []byte, size int) {
		emit(decodeLine(dec, stream, b, size, spec.LineLimit, &out.Stats, &out.Summary))
	}
	buf := make([]byte, 64<<10)
	// Past the hole a cut of the log's head left (see logCap), if any.
	offset = dataStart(f, st.Size(), offset)
	r := io.NewSectionReader(f, offset, st.Size()-offset)
	for {
		n, err := r.Read(buf)
		if stream == transcript.Stdout {
			out.Stats.StdoutBytes += int64(n)
		} else {
			out.Stats.StderrBytes += int64(n)
		}
		sp.feed(buf[:n], line)
		if errors.Is(err, io.EOF) {
			return int64(sp.size), nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// openArtifactDir opens dir for reading, beneath root when root is set
// (without following links, as openArtifacts does).
func openArtifactDir(root, dir string) (*ledger.Dir, error) {
	if root == "" {
		return ledger.OpenDir(dir, "", false)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("%s: %w", dir, ledger.ErrOutsideRoot)
	}
	return ledger.OpenDir(root, rel, false)
}

// SyncLogs makes spec's artifact logs durable. A successor that trusts
// what a dead controller wrote to them (see Replay) syncs them before it
// records anything that relies on them: that controller may never have.
func SyncLogs(spec Spec) error {
	dir, err := openArtifactDir(spec.ArtifactRoot, spec.ArtifactDir)
	if err != nil {
		return err
	}
	defer dir.Close()
	var errs []error
	for _, name := range []string{StdoutLog, StderrLog} {
		f, err := dir.OpenFile(name, os.O_RDONLY, 0)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, f.Sync(), f.Close())
	}
	return errors.Join(errs...)
}
