package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any bytes give either a valid Config or a list of problems,
// each with a code and a file, never a panic; the seed corpus is every
// daokit.toml under testdata/.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.toml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("seed corpus: %v (%d files)", err, len(files))
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "daokit.toml", "/ledger")
		if err != nil {
			es := AsErrors(err)
			if len(es) == 0 {
				t.Fatalf("error %v carries no problems", err)
			}
			for _, e := range es {
				if e.Code == "" || e.File != "daokit.toml" {
					t.Fatalf("problem without code or file: %+v", e)
				}
			}
			return
		}
		if verr := cfg.Validate(); verr != nil {
			t.Fatalf("Parse accepted a Config that Validate refuses: %v", verr)
		}
	})
}
