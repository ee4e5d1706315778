package archive

import (
	"archive/tar"
	"bytes"
	"path/filepath"
	"testing"

	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
	"github.com/svc-dev/svc/sandboxd/internal/identity"
)

func TestExtractedEntriesBelongToTheOwner(t *testing.T) {
	confinetest.AsRoot(t)
	root := t.TempDir()
	own := identity.New(1000, 1001, "/nonexistent", root)
	// A folder, a file, a link.
	tarball := makeTar(t, false,
		tarEntry{name: "x/", typeflag: tar.TypeDir, mode: 0o750},
		tarEntry{name: "x/f", typeflag: tar.TypeReg, body: "f", mode: 0o644},
		tarEntry{name: "x/l", typeflag: tar.TypeSymlink, link: "f"})
	_, err := extractArchive(root, own, root, bytes.NewReader(tarball))
	confinetest.Must(t, err)
	for _, p := range []string{"x", "x/f", "x/l"} {
		if uid, gid := confinetest.OwnerOf(t, filepath.Join(root, p)); uid != 1000 || gid != 1001 {
			t.Errorf("%s belongs to %d:%d", p, uid, gid)
		}
	}
}
