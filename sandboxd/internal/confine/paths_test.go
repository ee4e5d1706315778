package confine_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-dev/svc/sandboxd/internal/confine"
	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
)

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
