//go:build !unix

package outbox

import (
	"os"
	"path/filepath"
)

// pokeFolder writes a byte to dir/role/poke, the waiting Lead's watch
// sees it; a link on the way is not followed (checked, then opened).
func pokeFolder(dir, role string) {
	folder := filepath.Join(dir, role)
	for _, p := range []string{dir, folder, filepath.Join(folder, "poke")} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return
		}
	}
	f, err := os.OpenFile(filepath.Join(folder, "poke"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	f.Write([]byte{1})
	f.Close()
}
