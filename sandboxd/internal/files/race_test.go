package files

import (
	"fmt"
	"io/fs"
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
)

// These tests drive the handlers (the API's own doors), so they say what a caller can do,
// whatever the code below them does.

// raceFixture is a workspace whose entry "race" a goroutine keeps swapping between a real
// folder and a link to outside (an empty folder beside the workspace), until stop is called.
func raceFixture(t *testing.T) (root, outside string, stop func()) {
	t.Helper()
	dir := t.TempDir()
	root, outside = filepath.Join(dir, "workspace"), filepath.Join(dir, "outside")
	must(t, os.MkdirAll(filepath.Join(root, "race"), 0o755))
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.Symlink(outside, filepath.Join(root, "race.link")))
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

// assertEmpty fails when anything at all is in dir.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	if len(entries) > 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("written outside the workspace, in %s: %v", dir, names)
	}
}

// serveOne runs one request through a handler and returns its status.
func serveOne(h http.HandlerFunc, method, target, body string) int {
	rec := httptest.NewRecorder()
	h(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	return rec.Code
}

// raceBudget bounds each racing test: so many operations per writer, or so long, whichever
// ends first.
const (
	raceOps  = 1500
	raceTime = 3 * time.Second
)

func TestSymlinkRaceWritesNothingOutside(t *testing.T) {
	root, outside, stop := raceFixture(t)
	s := &Server{Workspace: root}
	tarBody := string(makeTar(t, false,
		tarEntry{name: "x/t.txt", typeflag: '0', body: "tar"},
		tarEntry{name: "y", typeflag: '5', mode: 0o755}))
	writers := map[string]func(i int) int{
		"PUT /fs": func(i int) int {
			return serveOne(s.ServeFS, "PUT", fmt.Sprintf("/fs?path=%s/race/deep/p%d.txt", root, i), "put")
		},
		"PUT /files": func(i int) int {
			body := fmt.Sprintf(`{"files":[{"path":"%s/race/f%d.txt","size":5}]}`+"\nfiles", root, i)
			return serveOne(s.PutFiles, "PUT", "/files", body)
		},
		"PUT /archive": func(i int) int {
			return serveOne(s.ServeArchive, "PUT", fmt.Sprintf("/archive?path=%s/race/a%d", root, i), tarBody)
		},
		"POST /fs mkdir and move": func(i int) int {
			code := serveOne(s.ServeFS, "POST", fmt.Sprintf("/fs?path=%s/race/m%d/n", root, i), `{"op":"mkdir"}`)
			src := fmt.Sprintf("%s/mv%d", root, i)
			_ = os.WriteFile(src, []byte("move"), 0o644)
			serveOne(s.ServeFS, "POST", "/fs?path="+src, fmt.Sprintf(`{"op":"move","to":"%s/race/moved%d"}`, root, i))
			return code
		},
	}
	var wg sync.WaitGroup
	var ok atomic.Int64
	deadline := time.Now().Add(raceTime)
	for name, write := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < raceOps && time.Now().Before(deadline); i++ {
				if code := write(i); code < 300 {
					ok.Add(1)
				}
			}
			t.Logf("%s: done", name)
		}()
	}
	wg.Wait()
	stop()
	assertEmpty(t, outside)
	if ok.Load() == 0 {
		t.Fatal("no write succeeded at all: the race proved nothing")
	}
	t.Logf("%d writes landed inside", ok.Load())
}

func TestSetuidAndSetgidAreCleared(t *testing.T) {
	root, _ := workspaceFixture(t)
	s := &Server{Workspace: root}
	perm := func(rel string) fs.FileMode {
		info, err := os.Lstat(filepath.Join(root, rel))
		must(t, err)
		return info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if code := serveOne(s.ServeFS, "PUT", "/fs?mode=6755&path="+root+"/put.sh", "x"); code != http.StatusCreated {
		t.Fatalf("PUT: %d", code)
	}
	// An existing setuid file (made behind the API's back) loses the bit when written over.
	must(t, os.WriteFile(filepath.Join(root, "old.sh"), nil, 0o755))
	must(t, os.Chmod(filepath.Join(root, "old.sh"), 0o755|fs.ModeSetuid))
	if perm("old.sh")&fs.ModeSetuid == 0 {
		t.Fatal("the fixture did not set setuid")
	}
	if code := serveOne(s.ServeFS, "PUT", "/fs?path="+root+"/old.sh", "x"); code != http.StatusOK {
		t.Fatalf("PUT over: %d", code)
	}
	body := fmt.Sprintf(`{"files":[{"path":"%s/files.sh","size":1,"mode":%d}]}`+"\nx", root, 0o6755)
	if code := serveOne(s.PutFiles, "PUT", "/files", body); code != http.StatusOK {
		t.Fatalf("PUT /files: %d", code)
	}
	tarBody := string(makeTar(t, false,
		tarEntry{name: "d/", typeflag: '5', mode: 0o2775},
		tarEntry{name: "shared/", typeflag: '5', mode: 0o1777},
		tarEntry{name: "d/tar.sh", typeflag: '0', body: "x", mode: 0o6755}))
	if code := serveOne(s.ServeArchive, "PUT", "/archive?path="+root+"/x", tarBody); code != http.StatusOK {
		t.Fatalf("PUT /archive: %d", code)
	}
	cases := map[string]fs.FileMode{
		"put.sh":     0o755,
		"old.sh":     0o755,
		"files.sh":   0o755,
		"x/d":        0o775,
		"x/d/tar.sh": 0o755,
		"x/shared":   0o777 | fs.ModeSticky, // sticky only guards a folder's entries: kept
	}
	for rel, want := range cases {
		if got := perm(rel); got != want {
			t.Errorf("%s: mode %v, want %v", rel, got, want)
		}
	}
}
