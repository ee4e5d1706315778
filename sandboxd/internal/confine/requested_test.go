package confine_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine"
	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
)

func TestPathConfinement(t *testing.T) {
	root, elsewhere := confinetest.Workspace(t)
	b := confinetest.Open(t, root)
	cases := []struct {
		name, path string
		read       string // the code resolveExisting answers ("" when it serves the path)
		write      string // the code resolveForWrite answers
	}{
		{"a file", root + "/sub/a.txt", "", ""},
		{"a new file", root + "/sub/new.txt", "not_found", ""},
		{"the root", root, "", "path_outside_workspace"},
		{"dots, even staying inside", root + "/sub/../sub/a.txt", "path_outside_workspace", "path_outside_workspace"},
		{"climbing out", root + "/../x", "path_outside_workspace", "path_outside_workspace"},
		{"an absolute path outside", elsewhere + "/passwd", "path_outside_workspace", "path_outside_workspace"},
		{"relative", "sub/a.txt", "path_outside_workspace", "path_outside_workspace"},
		{"a sibling sharing the prefix", root + "-x/y", "path_outside_workspace", "path_outside_workspace"},
		{"through a link out", root + "/out/passwd", "path_outside_workspace", "path_outside_workspace"},
		{"a missing file through a link out", root + "/out/new", "path_outside_workspace", "path_outside_workspace"},
		{"the link out itself", root + "/out", "path_outside_workspace", "path_outside_workspace"},
		{"through a link inside", root + "/in/a.txt", "", ""},
		{"empty", "", "bad_request", "bad_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := confine.ResolveExisting(b, c.path, true)
			if got := confinetest.Code(err); got != c.read {
				t.Errorf("read: %q, want %q", got, c.read)
			}
			_, err = confine.ResolveForWrite(b, c.path)
			if got := confinetest.Code(err); got != c.write {
				t.Errorf("write: %q, want %q", got, c.write)
			}
		})
	}
}

func TestWriteAtomicallyLeavesNothingOnFailure(t *testing.T) {
	root, _ := confinetest.Workspace(t)
	b := confinetest.Open(t, root)
	target := filepath.Join(root, "deep", "new", "f.bin")
	dir, name, err := b.ParentOf(target, "deep/new/f.bin", true)
	confinetest.Must(t, err)
	defer unix.Close(dir)
	n, sum, err := b.WriteAt(dir, name, strings.NewReader("hello"), 0o755, time.Time{})
	confinetest.Must(t, err)
	info, err := os.Stat(target)
	confinetest.Must(t, err)
	if n != 5 || sum != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" || info.Mode().Perm() != 0o755 {
		t.Fatalf("got %d %s %v", n, sum, info.Mode())
	}
	_, _, err = b.WriteAt(b.FD(), "g.bin", io.MultiReader(strings.NewReader("part"), failing{}), 0o644, time.Time{})
	if err == nil {
		t.Fatal("a body cut short was accepted")
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".svc-tmp-") || e.Name() == "g.bin" {
			t.Fatalf("left behind: %s", e.Name())
		}
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestResolveInside(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "workspace")
	confinetest.Must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	confinetest.Must(t, os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755))
	confinetest.Must(t, os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(root, "out")))
	confinetest.Must(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "in")))
	cases := []struct {
		name, path string
		want       string // "" when refused
	}{
		{"a file in the root", root + "/a.txt", root + "/a.txt"},
		{"a new folder", root + "/x/y/z.txt", root + "/x/y/z.txt"},
		{"dots that stay inside", root + "/sub/../b.txt", root + "/b.txt"},
		{"a link that stays inside", root + "/in/c.txt", root + "/in/c.txt"},
		{"climbing out with ..", root + "/../escaped.txt", ""},
		{"the root itself", root, ""},
		{"a sibling with the root as prefix", root + "-other/x", ""},
		{"an absolute path outside", dir + "/outside.txt", ""},
		{"a relative path", "relative.txt", ""},
		{"a NUL", root + "/a\x00b", ""},
		{"a link that escapes", root + "/out/escaped.txt", ""},
		{"a link that escapes, deeper", root + "/out/new/deeper.txt", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := confinetest.Open(t, root)
			rel, err := confine.ResolveInside(b, c.path)
			got := filepath.Join(root, rel)
			if c.want == "" {
				var refused *confine.PathRefused
				if !errors.As(err, &refused) {
					t.Fatalf("confine.ResolveInside(%q) = %q, %v; want a refusal", c.path, got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("confine.ResolveInside(%q) = %q, %v; want %q", c.path, got, err, c.want)
			}
		})
	}
}
