package compact

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/ledger"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// TestGolden compacts every testdata/golden/<name>.json, with the facts of
// <name>.ledger.json (a pipeline_state.json) when there is one, and
// compares with <name>.golden (the compacted context) and
// <name>.report.golden (the report).
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		if strings.HasSuffix(in, ".ledger.json") {
			continue
		}
		base := strings.TrimSuffix(in, ".json")
		t.Run(filepath.Base(base), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var known Facts
			if led, err := os.ReadFile(base + ".ledger.json"); err == nil {
				p, err := ledger.ParsePipelineState(led)
				if err != nil {
					t.Fatal(err)
				}
				known = PipelineFacts(p)
			}
			c, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			out, rep := Compact(c, known)
			report, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, base+".golden", out.Encode())
			compareGolden(t, base+".report.golden", append(report, '\n'))
			if again, rep := Compact(out, known); rep.Changed() || !bytes.Equal(again.Encode(), out.Encode()) {
				t.Errorf("second pass changed the context")
			}
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\ngot\n%s\nwant\n%s", path, got, want)
	}
}
