package ledger

import "testing"

// BenchmarkWritePipeline is the controller's pipeline write on a root
// only daokit writes: what the checks for the Python tool's resume logs
// must not slow down.
func BenchmarkWritePipeline(b *testing.B) {
	benchWritePipeline(b, initRoot(b))
}

// BenchmarkWritePipelinePythonRoot is the same write on a root the
// Python tool resumes from checkpoints: journaled, with a checkpoint and
// a snapshot line.
func BenchmarkWritePipelinePythonRoot(b *testing.B) {
	benchWritePipeline(b, resumeRoot(b))
}

func benchWritePipeline(b *testing.B, root string) {
	s := openStore(b, root)
	p, err := ParsePipelineState(readFile(b, statePath(root, PipelineFile)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.WritePipeline(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenClose is what every writing command pays to open a root,
// the Python backend check included.
func BenchmarkOpenClose(b *testing.B) {
	root := initRoot(b)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDaokitOnlyChecks is all that a root only daokit writes pays
// for the Python tool's resume logs and backend: the check on each
// pipeline write and the check on each Open.
func BenchmarkDaokitOnlyChecks(b *testing.B) {
	root := initRoot(b)
	s := openStore(b, root)
	b.Run("resume-logs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if s.resumeLogsActive() {
				b.Fatal("active on a daokit-only root")
			}
		}
	})
	b.Run("backend", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkBackend(root, s.dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}
