// Command gencatalog writes i18n/catalog_gen.go from i18n/locales/*.toml.
// Run it with `go generate ./i18n` after editing a catalog.
package main

import (
	"fmt"
	"os"

	"github.com/daokit/daokit/i18n/internal/catalog"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gencatalog:", err)
		os.Exit(1)
	}
}

// run is called with the i18n folder as working directory (go generate).
func run() error {
	fsys := os.DirFS(".")
	files, err := catalog.Files(fsys, "locales")
	if err != nil {
		return err
	}
	digest, err := catalog.Digest(fsys, files)
	if err != nil {
		return err
	}
	msgs, err := catalog.Load(fsys, files)
	if err != nil {
		return err
	}
	src, err := catalog.Render("i18n", digest, msgs)
	if err != nil {
		return err
	}
	return os.WriteFile("catalog_gen.go", src, 0o644)
}
