package archive

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
)

// These tests drive the handler (the API's own door), so they say what a caller can do,
// whatever the code below it does; files' race_test.go races its own doors the same way.

func TestSymlinkRaceWritesNothingOutside(t *testing.T) {
	root, outside, stop := confinetest.Race(t)
	s := &Server{Workspace: root}
	tarBody := string(makeTar(t, false,
		tarEntry{name: "x/t.txt", typeflag: '0', body: "tar"},
		tarEntry{name: "y", typeflag: '5', mode: 0o755}))
	var wg sync.WaitGroup
	var ok atomic.Int64
	deadline := time.Now().Add(confinetest.RaceTime)
	// Two writers, as the files' test runs one a door: the racer has more than one lookup
	// to swap under.
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < confinetest.RaceOps && time.Now().Before(deadline); i++ {
				target := fmt.Sprintf("/archive?path=%s/race/a%d-%d", root, w, i)
				if code := confinetest.ServeOne(s.ServeArchive, "PUT", target, tarBody); code < 300 {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	stop()
	confinetest.AssertEmpty(t, outside)
	if ok.Load() == 0 {
		t.Fatal("no write succeeded at all: the race proved nothing")
	}
	t.Logf("%d archives landed inside", ok.Load())
}

func TestSetuidAndSetgidAreCleared(t *testing.T) {
	root, _ := confinetest.Workspace(t)
	s := &Server{Workspace: root}
	tarBody := string(makeTar(t, false,
		tarEntry{name: "d/", typeflag: '5', mode: 0o2775},
		tarEntry{name: "shared/", typeflag: '5', mode: 0o1777},
		tarEntry{name: "d/tar.sh", typeflag: '0', body: "x", mode: 0o6755}))
	if code := confinetest.ServeOne(s.ServeArchive, "PUT", "/archive?path="+root+"/x", tarBody); code != http.StatusOK {
		t.Fatalf("PUT /archive: %d", code)
	}
	cases := map[string]fs.FileMode{
		"x/d":        0o775,
		"x/d/tar.sh": 0o755,
		"x/shared":   0o777 | fs.ModeSticky, // sticky only guards a folder's entries: kept
	}
	for rel, want := range cases {
		info, err := os.Lstat(filepath.Join(root, rel))
		confinetest.Must(t, err)
		if got := info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); got != want {
			t.Errorf("%s: mode %v, want %v", rel, got, want)
		}
	}
}
