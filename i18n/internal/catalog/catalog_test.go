package catalog

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadRefusesAnIDDefinedInTwoFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"a.en.toml": {Data: []byte("[cli.status]\nsummary.other = \"one\"\n")},
		"b.en.toml": {Data: []byte("[cli.status]\nsummary.other = \"two\"\n")},
	}
	_, err := Load(fsys, []string{"a.en.toml", "b.en.toml"})
	if err == nil || !strings.Contains(err.Error(), `"cli.status.summary"`) {
		t.Fatalf("Load: %v, want an error naming cli.status.summary", err)
	}
}

func TestLoadKeepsDistinctIDsOfSeveralFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"a.en.toml":    {Data: []byte("[cli.status]\nsummary.other = \"one\"\n")},
		"b.en.toml":    {Data: []byte("[cli.check]\nsummary.other = \"two\"\n")},
		"a.zh-CN.toml": {Data: []byte("[cli.status]\nsummary.other = \"一\"\n")},
	}
	got, err := Load(fsys, []string{"a.en.toml", "a.zh-CN.toml", "b.en.toml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got["en"]) != 2 || len(got["zh-CN"]) != 1 || got["en"][0].ID != "cli.check.summary" {
		t.Fatalf("Load: %+v", got)
	}
}
