// Command gencatalog writes i18n/catalog_gen.go and one
// catalog_<area>_gen.go per area from i18n/locales/*.toml.
// Run it with `go generate ./i18n` after editing a catalog.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/daokit/daokit/i18n/internal/catalog"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gencatalog:", err)
		os.Exit(1)
	}
}

// run is called with the i18n folder as working directory (go generate).
// It removes the generated file of an area that no longer exists.
func run() error {
	fsys := os.DirFS(".")
	files, err := catalog.Files(fsys, "locales")
	if err != nil {
		return err
	}
	out, err := catalog.Render(fsys, "i18n", files)
	if err != nil {
		return err
	}
	old, err := filepath.Glob(catalog.AreaFile("*"))
	if err != nil {
		return err
	}
	for _, name := range old {
		if _, ok := out[name]; !ok {
			if err := os.Remove(name); err != nil {
				return err
			}
		}
	}
	for name, src := range out {
		if err := os.WriteFile(name, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}
