package files

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
)

// These tests drive the handlers (the API's own doors), so they say what a caller can do,
// whatever the code below them does.

func TestSymlinkRaceWritesNothingOutside(t *testing.T) {
	root, outside, stop := confinetest.Race(t)
	s := &Server{Workspace: root}
	writers := map[string]func(i int) int{
		"PUT /fs": func(i int) int {
			return confinetest.ServeOne(s.ServeFS, "PUT", fmt.Sprintf("/fs?path=%s/race/deep/p%d.txt", root, i), "put")
		},
		"PUT /files": func(i int) int {
			body := fmt.Sprintf(`{"files":[{"path":"%s/race/f%d.txt","size":5}]}`+"\nfiles", root, i)
			return confinetest.ServeOne(s.PutFiles, "PUT", "/files", body)
		},
		"POST /fs mkdir and move": func(i int) int {
			code := confinetest.ServeOne(s.ServeFS, "POST", fmt.Sprintf("/fs?path=%s/race/m%d/n", root, i), `{"op":"mkdir"}`)
			src := fmt.Sprintf("%s/mv%d", root, i)
			_ = os.WriteFile(src, []byte("move"), 0o644)
			confinetest.ServeOne(s.ServeFS, "POST", "/fs?path="+src, fmt.Sprintf(`{"op":"move","to":"%s/race/moved%d"}`, root, i))
			return code
		},
	}
	confinetest.RaceWrites(t, outside, stop, writers)
}

func TestSetuidAndSetgidAreCleared(t *testing.T) {
	root, _ := confinetest.Workspace(t)
	s := &Server{Workspace: root}
	perm := func(rel string) fs.FileMode {
		info, err := os.Lstat(filepath.Join(root, rel))
		confinetest.Must(t, err)
		return info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if code := confinetest.ServeOne(s.ServeFS, "PUT", "/fs?mode=6755&path="+root+"/put.sh", "x"); code != http.StatusCreated {
		t.Fatalf("PUT: %d", code)
	}
	// An existing setuid file (made behind the API's back) loses the bit when written over.
	confinetest.Must(t, os.WriteFile(filepath.Join(root, "old.sh"), nil, 0o755))
	confinetest.Must(t, os.Chmod(filepath.Join(root, "old.sh"), 0o755|fs.ModeSetuid))
	if perm("old.sh")&fs.ModeSetuid == 0 {
		t.Fatal("the fixture did not set setuid")
	}
	if code := confinetest.ServeOne(s.ServeFS, "PUT", "/fs?path="+root+"/old.sh", "x"); code != http.StatusOK {
		t.Fatalf("PUT over: %d", code)
	}
	body := fmt.Sprintf(`{"files":[{"path":"%s/files.sh","size":1,"mode":%d}]}`+"\nx", root, 0o6755)
	if code := confinetest.ServeOne(s.PutFiles, "PUT", "/files", body); code != http.StatusOK {
		t.Fatalf("PUT /files: %d", code)
	}
	cases := map[string]fs.FileMode{
		"put.sh":   0o755,
		"old.sh":   0o755,
		"files.sh": 0o755,
	}
	for rel, want := range cases {
		if got := perm(rel); got != want {
			t.Errorf("%s: mode %v, want %v", rel, got, want)
		}
	}
}
