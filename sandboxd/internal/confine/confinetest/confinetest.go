// Package confinetest is what the tests of the confined APIs (confine, files, archive) share:
// workspaces with links in and out, a racer that swaps a folder for a link out, and the
// checks that nothing was written outside.
package confinetest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine"
)

// Must fails the test on err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Workspace is a workspace with a folder, a file, a link inside and a link out.
func Workspace(t testing.TB) (root, elsewhere string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "workspace")
	elsewhere = filepath.Join(dir, "etc")
	Must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	Must(t, os.MkdirAll(elsewhere, 0o755))
	Must(t, os.WriteFile(filepath.Join(elsewhere, "passwd"), []byte("secret"), 0o644))
	Must(t, os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("a"), 0o644))
	Must(t, os.Symlink(elsewhere, filepath.Join(root, "out")))
	Must(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "in")))
	return root, elsewhere
}

// Open is the workspace root opened as the handlers open it, closed when the test ends.
func Open(t testing.TB, root string) *confine.Root {
	t.Helper()
	b, err := confine.Open(root)
	Must(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// DirFd opens rel beneath b's root as a folder, closed when the test ends.
func DirFd(t testing.TB, b *confine.Root, rel string) int {
	t.Helper()
	fd, err := b.OpenAt(b.FD(), rel, unix.O_PATH|unix.O_DIRECTORY, 0)
	Must(t, err)
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// Code is the error code a caller would be answered with for err ("" for none).
func Code(err error) string {
	var fe *confine.Refusal
	if errors.As(err, &fe) {
		return fe.Code
	}
	var refused *confine.PathRefused
	if errors.As(err, &refused) {
		return "path_outside_workspace"
	}
	if err == nil {
		return ""
	}
	return "other: " + err.Error()
}

// Race is a workspace whose entry "race" a goroutine keeps swapping between a real folder
// and a link to outside (an empty folder beside the workspace), until stop is called.
func Race(t testing.TB) (root, outside string, stop func()) {
	t.Helper()
	dir := t.TempDir()
	root, outside = filepath.Join(dir, "workspace"), filepath.Join(dir, "outside")
	Must(t, os.MkdirAll(filepath.Join(root, "race"), 0o755))
	Must(t, os.MkdirAll(outside, 0o755))
	Must(t, os.Symlink(outside, filepath.Join(root, "race.link")))
	a, b := filepath.Join(root, "race"), filepath.Join(root, "race.link")
	// RENAME_EXCHANGE swaps the two names in one step, so "race" is always one or the other.
	exchange := func() error { return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) }
	if err := exchange(); err != nil {
		t.Fatalf("RENAME_EXCHANGE is needed to race: %v", err)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	var swaps atomic.Int64
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
			}
			if exchange() == nil {
				swaps.Add(1)
			}
		}
	}()
	return root, outside, func() {
		close(quit)
		<-done
		if swaps.Load() == 0 {
			t.Fatal("the racer never swapped")
		}
	}
}

// RaceBudget bounds each racing test: so many operations per writer, or so long, whichever
// ends first.
const (
	RaceOps  = 1500
	RaceTime = 3 * time.Second
)

// RaceWrites runs the writers (each one door, called with 0, 1, … and answering a status)
// at once against the racer of Race, each for RaceOps calls or RaceTime, then stops the
// racer: nothing may be in outside, and some write must have landed inside, or the race
// proved nothing.
func RaceWrites(t testing.TB, outside string, stop func(), writers map[string]func(i int) int) {
	t.Helper()
	var wg sync.WaitGroup
	var ok atomic.Int64
	deadline := time.Now().Add(RaceTime)
	for name, write := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < RaceOps && time.Now().Before(deadline); i++ {
				if code := write(i); code < 300 {
					ok.Add(1)
				}
			}
			t.Logf("%s: done", name)
		}()
	}
	wg.Wait()
	stop()
	AssertEmpty(t, outside)
	if ok.Load() == 0 {
		t.Fatal("no write succeeded at all: the race proved nothing")
	}
	t.Logf("%d writes landed inside", ok.Load())
}

// AssertEmpty fails when anything at all is in dir.
func AssertEmpty(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	Must(t, err)
	if len(entries) > 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("written outside the workspace, in %s: %v", dir, names)
	}
}

// ServeOne runs one request through a handler and returns its status.
func ServeOne(h http.HandlerFunc, method, target, body string) int {
	rec := httptest.NewRecorder()
	h(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	return rec.Code
}

// AsRoot skips where the test cannot change owners (the daemon's own case needs root).
func AsRoot(t testing.TB) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to change owners: sandboxd runs as root in its Pod")
	}
}

// OwnerOf is the uid and gid of path itself (a link's own, not its target's).
func OwnerOf(t testing.TB, path string) (uint32, uint32) {
	t.Helper()
	var st unix.Stat_t
	Must(t, unix.Lstat(path, &st))
	return st.Uid, st.Gid
}
