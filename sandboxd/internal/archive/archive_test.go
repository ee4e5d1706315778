package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/confine/confinetest"
	"github.com/svc-dev/svc/sandboxd/internal/identity"
)

type tarEntry struct {
	name, link string
	typeflag   byte
	body       string
	mode       int64
}

func makeTar(t *testing.T, gz bool, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var out io.Writer = &buf
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		out = zw
	}
	tw := tar.NewWriter(out)
	for _, e := range entries {
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		confinetest.Must(t, tw.WriteHeader(&tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typeflag, Mode: mode, Size: int64(len(e.body)), ModTime: time.Unix(1_700_000_000, 0)}))
		_, err := io.WriteString(tw, e.body)
		confinetest.Must(t, err)
	}
	confinetest.Must(t, tw.Close())
	if zw != nil {
		confinetest.Must(t, zw.Close())
	}
	return buf.Bytes()
}

// snapshot lists every path under dir, to show that a refused archive changed nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	confinetest.Must(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		names = append(names, p)
		return err
	}))
	return strings.Join(names, "\n")
}

func TestExtractRefusesEscapesBeforeWriting(t *testing.T) {
	reg := byte(tar.TypeReg)
	ok := tarEntry{name: "fine.txt", typeflag: reg, body: "fine"}
	cases := []struct {
		name  string
		entry tarEntry
	}{
		{"dot-dot", tarEntry{name: "../evil", typeflag: reg, body: "x"}},
		{"dot-dot inside the name", tarEntry{name: "a/../../evil", typeflag: reg, body: "x"}},
		{"absolute", tarEntry{name: "/etc/evil", typeflag: reg, body: "x"}},
		{"a link to an absolute path outside", tarEntry{name: "l", typeflag: tar.TypeSymlink, link: "/etc"}},
		{"a link climbing out", tarEntry{name: "l", typeflag: tar.TypeSymlink, link: "../../../etc"}},
		{"a hard link outside", tarEntry{name: "h", typeflag: tar.TypeLink, link: "../../etc/passwd"}},
		{"a hard link to an absolute path", tarEntry{name: "h", typeflag: tar.TypeLink, link: "/etc/passwd"}},
		{"through an existing link out", tarEntry{name: "out/evil", typeflag: reg, body: "x"}},
		{"a device", tarEntry{name: "dev", typeflag: tar.TypeChar}},
	}
	for _, gz := range []bool{false, true} {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				root, elsewhere := confinetest.Workspace(t)
				before, beforeOut := snapshot(t, root), snapshot(t, elsewhere)
				_, err := extractArchive(root, nil, root, bytes.NewReader(makeTar(t, gz, ok, c.entry)))
				if code := confinetest.Code(err); code != "path_outside_workspace" && code != "bad_archive" {
					t.Fatalf("got %v", err)
				}
				if snapshot(t, root) != before || snapshot(t, elsewhere) != beforeOut {
					t.Fatal("a refused archive wrote something")
				}
			})
		}
	}
}

func TestExtractRefusesLinkTricks(t *testing.T) {
	sym := byte(tar.TypeSymlink)
	cases := map[string][]tarEntry{
		// up is a link to the workspace root; a .. after it climbs from there, not from dest.
		"dot-dot after an archive link": {
			{name: "up", typeflag: sym, link: "../.."},
			{name: "deep/x", typeflag: sym, link: "../up/.."},
		},
		"a write through an archive link": {
			{name: "in", typeflag: sym, link: "."},
			{name: "in/file", typeflag: tar.TypeReg, body: "x"},
		},
		"a write below a link that comes later": {
			{name: "d/file", typeflag: tar.TypeReg, body: "x"},
			{name: "d", typeflag: sym, link: "/etc"},
		},
		"a link to an existing link out": {
			{name: "l", typeflag: sym, link: "../out"},
		},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			root, _ := confinetest.Workspace(t)
			before := snapshot(t, root)
			_, err := extractArchive(root, nil, root+"/dest", bytes.NewReader(makeTar(t, false, entries...)))
			if confinetest.Code(err) != "path_outside_workspace" {
				t.Fatalf("got %v", err)
			}
			if snapshot(t, root) != before {
				t.Fatal("a refused archive wrote something")
			}
		})
	}
}

func TestArchiveRoundTrip(t *testing.T) {
	root, _ := confinetest.Workspace(t)
	src := filepath.Join(root, "src")
	confinetest.Must(t, os.MkdirAll(filepath.Join(src, "bin"), 0o750))
	confinetest.Must(t, os.WriteFile(filepath.Join(src, "bin", "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	confinetest.Must(t, os.WriteFile(filepath.Join(src, "data.txt"), []byte("data"), 0o600))
	confinetest.Must(t, os.Symlink("bin/run.sh", filepath.Join(src, "run")))
	mtime := time.Unix(1_600_000_000, 0)
	confinetest.Must(t, os.Chtimes(filepath.Join(src, "data.txt"), mtime, mtime))
	b := confinetest.Open(t, root)
	srcFd := confinetest.DirFd(t, b, "src")

	for _, format := range []string{"tar", "tar.gz"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if format == "tar" {
				confinetest.Must(t, writeTar(&buf, b, srcFd))
			} else {
				gz := gzip.NewWriter(&buf)
				confinetest.Must(t, writeTar(gz, b, srcFd))
				confinetest.Must(t, gz.Close())
			}
			dest := filepath.Join(root, "copy-"+format)
			res, err := extractArchive(root, nil, dest, &buf)
			confinetest.Must(t, err)
			if res.Files != 3 || res.Bytes != int64(len("#!/bin/sh\necho hi\n")+4) {
				t.Fatalf("answer %+v", res)
			}
			perm := func(p string) os.FileMode {
				info, err := os.Lstat(filepath.Join(dest, p))
				confinetest.Must(t, err)
				return info.Mode()
			}
			if perm("bin/run.sh").Perm() != 0o755 || perm("data.txt").Perm() != 0o600 || perm("bin").Perm() != 0o750 {
				t.Fatalf("modes %v %v %v", perm("bin/run.sh"), perm("data.txt"), perm("bin"))
			}
			if link, err := os.Readlink(filepath.Join(dest, "run")); err != nil || link != "bin/run.sh" {
				t.Fatalf("link %q %v", link, err)
			}
			if info, _ := os.Stat(filepath.Join(dest, "data.txt")); !info.ModTime().Equal(mtime) {
				t.Fatalf("mtime %v", info.ModTime())
			}
		})
	}
}

func TestZipKeepsLinksAndModes(t *testing.T) {
	root, _ := confinetest.Workspace(t)
	confinetest.Must(t, os.WriteFile(filepath.Join(root, "sub", "x.sh"), []byte("x"), 0o755))
	confinetest.Must(t, os.Symlink("a.txt", filepath.Join(root, "sub", "l")))
	var buf bytes.Buffer
	b := confinetest.Open(t, root)
	confinetest.Must(t, writeZip(&buf, b, confinetest.DirFd(t, b, "sub")))
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	confinetest.Must(t, err)
	got := map[string]os.FileMode{}
	for _, f := range zr.File {
		got[f.Name] = f.Mode()
	}
	if got["x.sh"].Perm() != 0o755 || got["l"]&os.ModeSymlink == 0 || got["a.txt"].Perm() != 0o644 {
		t.Fatalf("entries %v", got)
	}
}

// These tests drive the handler (the API's own door), so they say what a caller can do,
// whatever the code below it does; files' race_test.go races its doors the same way.

func TestSymlinkRaceWritesNothingOutside(t *testing.T) {
	root, outside, stop := confinetest.Race(t)
	s := &Server{Workspace: root}
	tarBody := string(makeTar(t, false,
		tarEntry{name: "x/t.txt", typeflag: '0', body: "tar"},
		tarEntry{name: "y", typeflag: '5', mode: 0o755}))
	confinetest.RaceWrites(t, outside, stop, map[string]func(i int) int{
		"PUT /archive": func(i int) int {
			return confinetest.ServeOne(s.ServeArchive, "PUT", fmt.Sprintf("/archive?path=%s/race/a%d", root, i), tarBody)
		},
	})
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

func TestExtractedEntriesBelongToTheOwner(t *testing.T) {
	confinetest.AsRoot(t)
	root := t.TempDir()
	own := identity.New(1000, 1001, "/nonexistent", root)
	// A folder, a file, a link.
	tarball := makeTar(t, false,
		tarEntry{name: "x/", typeflag: tar.TypeDir, mode: 0o750},
		tarEntry{name: "x/f", typeflag: tar.TypeReg, body: "f", mode: 0o644},
		tarEntry{name: "x/l", typeflag: tar.TypeSymlink, link: "f"})
	_, err := extractArchive(root, own, root, bytes.NewReader(tarball))
	confinetest.Must(t, err)
	for _, p := range []string{"x", "x/f", "x/l"} {
		if uid, gid := confinetest.OwnerOf(t, filepath.Join(root, p)); uid != 1000 || gid != 1001 {
			t.Errorf("%s belongs to %d:%d", p, uid, gid)
		}
	}
}
