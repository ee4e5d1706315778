package files

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/identity"
)

func TestWritesBelongToTheOwner(t *testing.T) {
	asRoot(t)
	root := t.TempDir()
	own := identity.New(1000, 1001, "/nonexistent", root)
	// The files API: a new folder and the file in it.
	b := openTest(t, root)
	b.owner = own
	dir, name, err := b.parentOf("/w/new/a.txt", "new/a.txt", true)
	must(t, err)
	_, _, err = b.writeAt(dir, name, strings.NewReader("x"), 0o4755, time.Unix(1000, 0))
	unix.Close(dir)
	must(t, err)
	// configure's files.
	_, err = writeFiles(root, own, strings.NewReader(`{"files":[{"path":"`+root+`/c/b.txt","size":1}]}`+"\ny"))
	must(t, err)
	// An archive: a folder, a file, a link.
	tarball := makeTar(t, false,
		tarEntry{name: "x/", typeflag: tar.TypeDir, mode: 0o750},
		tarEntry{name: "x/f", typeflag: tar.TypeReg, body: "f", mode: 0o644},
		tarEntry{name: "x/l", typeflag: tar.TypeSymlink, link: "f"})
	_, err = extractArchive(root, own, root, bytes.NewReader(tarball))
	must(t, err)
	for _, p := range []string{"new", "new/a.txt", "c", "c/b.txt", "x", "x/f", "x/l"} {
		if uid, gid := ownerOf(t, filepath.Join(root, p)); uid != 1000 || gid != 1001 {
			t.Errorf("%s belongs to %d:%d", p, uid, gid)
		}
	}
	info, err := os.Stat(filepath.Join(root, "new/a.txt"))
	must(t, err)
	if info.Mode() != 0o755 || !info.ModTime().Equal(time.Unix(1000, 0)) {
		t.Errorf("mode %v time %v", info.Mode(), info.ModTime())
	}
}

// asRoot skips where the test cannot change owners (the daemon's own case needs root).
func asRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to change owners: sandboxd runs as root in its Pod")
	}
}

func ownerOf(t *testing.T, path string) (uint32, uint32) {
	t.Helper()
	var st unix.Stat_t
	must(t, unix.Lstat(path, &st))
	return st.Uid, st.Gid
}
