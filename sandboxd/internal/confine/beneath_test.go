package confine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine"
	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
)

// Both ways to the workspace: openat2, and the walk kept for kernels and runtimes without it.
var modes = []struct {
	name string
	walk bool
}{{"openat2", false}, {"walk", true}}

func openMode(t *testing.T, root string, walk bool) *confine.Root {
	t.Helper()
	b := confinetest.Open(t, root)
	if walked := confine.ForceWalk(b, walk); !walk && walked {
		t.Fatal("openat2 is missing on this kernel: the test would only prove the walk")
	}
	return b
}

// linkFixture is a workspace with links of every kind, and an empty folder outside it.
func linkFixture(t *testing.T) (root, outside string) {
	t.Helper()
	dir := t.TempDir()
	root, outside = filepath.Join(dir, "workspace"), filepath.Join(dir, "outside")
	confinetest.Must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	confinetest.Must(t, os.MkdirAll(outside, 0o755))
	confinetest.Must(t, os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("a"), 0o644))
	links := map[string]string{
		"abs-out":      outside,                     // an absolute link out
		"rel-out":      "../outside",                // a relative link climbing out
		"deep-out":     "sub/../../outside",         // climbing out from further down
		"abs-in":       filepath.Join(root, "sub"),  // an absolute link that stays inside
		"rel-in":       "sub",                       // a relative one that stays inside
		"sub/up":       "..",                        // up to the root, still inside
		"magic":        "/proc/self/root",           // a magic link's way out of any root
		"magic-fd":     "/proc/self/cwd",            // and another
		"loop-a":       "loop-b",                    // a loop
		"loop-b":       "loop-a",                    //
		"sub/via-link": "../abs-out",                // inside, to a link out
		"self-root":    filepath.Join(root, "."),    // the root itself
		"climb-root":   "../" + filepath.Base(root), // out and back in by name
	}
	for name, target := range links {
		confinetest.Must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	return root, outside
}

func TestBeneathConfinement(t *testing.T) {
	cases := []struct {
		name, rel string
		// inside: the path is served (read when it exists, written when new); else refused
		// with path_outside_workspace by the handlers, and by the kernel's open alone.
		inside bool
		// kernel: openat2 opens the path as written too (RESOLVE_BENEATH refuses every
		// absolute link: the handlers follow those themselves, beneath the root).
		kernel bool
	}{
		{"a plain file", "sub/a.txt", true, true},
		{"a new file", "sub/new.txt", true, true},
		{"through an absolute link inside", "abs-in/a.txt", true, false},
		{"through an absolute link to the root", "self-root/sub/a.txt", true, false},
		{"through a relative link inside", "rel-in/a.txt", true, true},
		{"up and back down", "sub/up/sub/a.txt", true, true},
		{"through an absolute link out", "abs-out/x", false, false},
		{"through a relative link out", "rel-out/x", false, false},
		{"through a deeper link out", "deep-out/x", false, false},
		{"through a magic link", "magic/etc/passwd", false, false},
		{"through another magic link", "magic-fd/x", false, false},
		{"through a loop", "loop-a/x", false, false},
		{"through a link to a link out", "sub/via-link/x", false, false},
		{"out and back in by name", "climb-root/sub/a.txt", false, false},
	}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				root, outside := linkFixture(t)
				b := openMode(t, root, m.walk)
				requested := filepath.Join(root, c.rel)
				// What the handlers answer: reading, writing, making a folder.
				_, rerr := confine.ResolveExisting(b, requested, false)
				_, werr := confine.ResolveForWrite(b, requested)
				if c.inside {
					if werr != nil || (rerr != nil && confinetest.Code(rerr) != "not_found") {
						t.Fatalf("refused: read %v, write %v", rerr, werr)
					}
					dir, name, err := b.ParentOf(requested, c.rel, true)
					confinetest.Must(t, err)
					_, _, err = b.WriteAt(dir, name, strings.NewReader("w"), 0o644, time.Time{})
					unix.Close(dir)
					confinetest.Must(t, err)
				} else {
					for what, err := range map[string]error{"read": rerr, "write": werr} {
						if confinetest.Code(err) != "path_outside_workspace" {
							t.Errorf("%s: %v, want path_outside_workspace", what, err)
						}
					}
				}
				// What the kernel does with the path as written, nothing resolved before: an
				// escape never opens, whatever mode; in the walk every link is refused.
				fd, err := b.OpenAt(b.FD(), c.rel, unix.O_RDWR|unix.O_CREAT, 0o644)
				if err == nil {
					unix.Close(fd)
				}
				switch {
				case !c.kernel && err == nil:
					t.Errorf("the kernel opened %s", c.rel)
				case c.kernel && !m.walk && err != nil:
					t.Errorf("openat2 refused %s: %v", c.rel, err)
				}
				confinetest.AssertEmpty(t, outside)
			})
		}
	}
}

// TestBeneathRefusesMagicLinks puts the root where magic links are its own entries (a
// process's /proc folder): RESOLVE_NO_MAGICLINKS (or, in the walk, O_NOFOLLOW) keeps
// root/, cwd/ and fd/N/ from jumping anywhere.
func TestBeneathRefusesMagicLinks(t *testing.T) {
	f, err := os.Open(t.TempDir())
	confinetest.Must(t, err)
	defer f.Close()
	for _, m := range modes {
		b := openMode(t, "/proc/self", m.walk)
		for _, rel := range []string{"root/etc/passwd", "cwd", "root", "exe", fmt.Sprintf("fd/%d", f.Fd())} {
			fd, err := b.OpenAt(b.FD(), rel, unix.O_RDONLY, 0)
			if err == nil {
				unix.Close(fd)
				t.Errorf("%s: opened /proc/self/%s", m.name, rel)
			}
			if _, err := confine.ResolveExisting(b, "/proc/self/"+rel, false); confinetest.Code(err) != "path_outside_workspace" {
				t.Errorf("%s: confine.ResolveExisting(/proc/self/%s) = %v", m.name, rel, err)
			}
		}
	}
}

// TestSymlinkRaceBeneath races the swap against the layer itself, in both ways to the
// workspace (the handlers' test above runs only the way this kernel offers).
func TestSymlinkRaceBeneath(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			root, outside, stop := confinetest.Race(t)
			b := openMode(t, root, m.walk)
			var wg sync.WaitGroup
			deadline := time.Now().Add(confinetest.RaceTime / 2)
			for w := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < confinetest.RaceOps && time.Now().Before(deadline); i++ {
						rel := fmt.Sprintf("race/w%d/n%d/f.txt", w, i)
						if dir, name, err := b.ParentOf(rel, rel, true); err == nil {
							_, _, _ = b.WriteAt(dir, name, strings.NewReader("x"), 0o644, time.Time{})
							unix.Close(dir)
						}
						if fd, err := b.OpenAt(b.FD(), fmt.Sprintf("race/o%d-%d", w, i), unix.O_WRONLY|unix.O_CREAT, 0o644); err == nil {
							unix.Close(fd)
						}
						_ = b.MkdirAll("race", fmt.Sprintf("race/d%d-%d", w, i))
					}
				}()
			}
			wg.Wait()
			stop()
			confinetest.AssertEmpty(t, outside)
		})
	}
}

func TestResolveRefusesTooManyLinks(t *testing.T) {
	root := t.TempDir()
	b := confinetest.Open(t, root)
	prev := "."
	for i := range confine.MaxLinks + 2 {
		name := fmt.Sprintf("l%d", i)
		confinetest.Must(t, os.Symlink(prev, filepath.Join(root, name)))
		prev = name
	}
	_, err := b.Resolve("x", prev+"/x", true)
	var refused *confine.PathRefused
	if !errors.As(err, &refused) {
		t.Fatalf("got %v", err)
	}
}
