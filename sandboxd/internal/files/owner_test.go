package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
	"github.com/svc-dev/svc/sandboxd/internal/identity"
)

func TestWritesBelongToTheOwner(t *testing.T) {
	confinetest.AsRoot(t)
	root := t.TempDir()
	own := identity.New(1000, 1001, "/nonexistent", root)
	// The files API: a new folder and the file in it.
	b := confinetest.Open(t, root)
	b.Owner = own
	dir, name, err := b.ParentOf("/w/new/a.txt", "new/a.txt", true)
	confinetest.Must(t, err)
	_, _, err = b.WriteAt(dir, name, strings.NewReader("x"), 0o4755, time.Unix(1000, 0))
	unix.Close(dir)
	confinetest.Must(t, err)
	// configure's files.
	_, err = writeFiles(root, own, strings.NewReader(`{"files":[{"path":"`+root+`/c/b.txt","size":1}]}`+"\ny"))
	confinetest.Must(t, err)
	for _, p := range []string{"new", "new/a.txt", "c", "c/b.txt"} {
		if uid, gid := confinetest.OwnerOf(t, filepath.Join(root, p)); uid != 1000 || gid != 1001 {
			t.Errorf("%s belongs to %d:%d", p, uid, gid)
		}
	}
	info, err := os.Stat(filepath.Join(root, "new/a.txt"))
	confinetest.Must(t, err)
	if info.Mode() != 0o755 || !info.ModTime().Equal(time.Unix(1000, 0)) {
		t.Errorf("mode %v time %v", info.Mode(), info.ModTime())
	}
}
