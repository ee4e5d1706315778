package files

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
)

func TestDeleteAndMoveRefuseTheOutside(t *testing.T) {
	root, elsewhere := confinetest.Workspace(t)
	s := &Server{Workspace: root}
	rec := &recorder{header: http.Header{}}
	err := s.deletePath(rec, root+"/out/passwd", "")
	if confinetest.Code(err) != "path_outside_workspace" {
		t.Fatalf("delete through a link out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "passwd")); err != nil {
		t.Fatal("deleted outside")
	}
	// Deleting the link itself is fine: what it points at stays.
	confinetest.Must(t, s.deletePath(rec, root+"/out", ""))
	if _, err := os.Stat(filepath.Join(elsewhere, "passwd")); err != nil {
		t.Fatal("deleting the link removed its target")
	}
	if err := s.deletePath(rec, root+"/sub", ""); confinetest.Code(err) != "directory_not_empty" {
		t.Fatalf("non-empty folder: %v", err)
	}
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

func TestBeneathStatAndListDoNotFollow(t *testing.T) {
	root, outside := confinetest.Workspace(t)
	confinetest.Must(t, os.WriteFile(filepath.Join(outside, "big"), make([]byte, 4096), 0o644))
	confinetest.Must(t, os.Symlink(filepath.Join(outside, "big"), filepath.Join(root, "sub", "l")))
	b := confinetest.Open(t, root)
	f, err := b.OpenFile(root+"/sub", "sub", unix.O_RDONLY)
	confinetest.Must(t, err)
	defer f.Close()
	list, err := listDir(root+"/sub", f)
	confinetest.Must(t, err)
	for _, e := range list.Entries {
		if e.Name == "l" && (e.Type != "symlink" || e.Size == 4096) {
			t.Fatalf("the link was followed: %+v", e)
		}
	}
}
