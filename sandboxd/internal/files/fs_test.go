package files

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// workspaceFixture is a workspace with a folder, a file, a link inside and a link out.
func workspaceFixture(t *testing.T) (root, elsewhere string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "workspace")
	elsewhere = filepath.Join(dir, "etc")
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.MkdirAll(elsewhere, 0o755))
	must(t, os.WriteFile(filepath.Join(elsewhere, "passwd"), []byte("secret"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("a"), 0o644))
	must(t, os.Symlink(elsewhere, filepath.Join(root, "out")))
	must(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "in")))
	return root, elsewhere
}

// openTest is the workspace root opened as the handlers open it.
func openTest(t *testing.T, root string) *beneath {
	t.Helper()
	b, err := openBeneath(root)
	must(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// dirFd opens rel beneath b's root as a folder, closed when the test ends.
func dirFd(t *testing.T, b *beneath, rel string) int {
	t.Helper()
	fd, err := b.openat(b.fd, rel, unix.O_PATH|unix.O_DIRECTORY, 0)
	must(t, err)
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

func codeOf(err error) string {
	var fe *fsError
	if errors.As(err, &fe) {
		return fe.code
	}
	var refused *pathRefused
	if errors.As(err, &refused) {
		return "path_outside_workspace"
	}
	if err == nil {
		return ""
	}
	return "other: " + err.Error()
}

func TestPathConfinement(t *testing.T) {
	root, elsewhere := workspaceFixture(t)
	b := openTest(t, root)
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
			_, err := resolveExisting(b, c.path, true)
			if got := codeOf(err); got != c.read {
				t.Errorf("read: %q, want %q", got, c.read)
			}
			_, err = resolveForWrite(b, c.path)
			if got := codeOf(err); got != c.write {
				t.Errorf("write: %q, want %q", got, c.write)
			}
		})
	}
}

func TestWriteAtomicallyLeavesNothingOnFailure(t *testing.T) {
	root, _ := workspaceFixture(t)
	b := openTest(t, root)
	target := filepath.Join(root, "deep", "new", "f.bin")
	dir, name, err := b.parentOf(target, "deep/new/f.bin", true)
	must(t, err)
	defer unix.Close(dir)
	n, sum, err := b.writeAt(dir, name, strings.NewReader("hello"), 0o755, time.Time{})
	must(t, err)
	info, err := os.Stat(target)
	must(t, err)
	if n != 5 || sum != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" || info.Mode().Perm() != 0o755 {
		t.Fatalf("got %d %s %v", n, sum, info.Mode())
	}
	_, _, err = b.writeAt(b.fd, "g.bin", io.MultiReader(strings.NewReader("part"), failing{}), 0o644, time.Time{})
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
		must(t, tw.WriteHeader(&tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typeflag, Mode: mode, Size: int64(len(e.body)), ModTime: time.Unix(1_700_000_000, 0)}))
		_, err := io.WriteString(tw, e.body)
		must(t, err)
	}
	must(t, tw.Close())
	if zw != nil {
		must(t, zw.Close())
	}
	return buf.Bytes()
}

// snapshot lists every path under dir, to show that a refused archive changed nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	must(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
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
				root, elsewhere := workspaceFixture(t)
				before, beforeOut := snapshot(t, root), snapshot(t, elsewhere)
				_, err := extractArchive(root, nil, root, bytes.NewReader(makeTar(t, gz, ok, c.entry)))
				if code := codeOf(err); code != "path_outside_workspace" && code != "bad_archive" {
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
			root, _ := workspaceFixture(t)
			before := snapshot(t, root)
			_, err := extractArchive(root, nil, root+"/dest", bytes.NewReader(makeTar(t, false, entries...)))
			if codeOf(err) != "path_outside_workspace" {
				t.Fatalf("got %v", err)
			}
			if snapshot(t, root) != before {
				t.Fatal("a refused archive wrote something")
			}
		})
	}
}

func TestArchiveRoundTrip(t *testing.T) {
	root, _ := workspaceFixture(t)
	src := filepath.Join(root, "src")
	must(t, os.MkdirAll(filepath.Join(src, "bin"), 0o750))
	must(t, os.WriteFile(filepath.Join(src, "bin", "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "data.txt"), []byte("data"), 0o600))
	must(t, os.Symlink("bin/run.sh", filepath.Join(src, "run")))
	mtime := time.Unix(1_600_000_000, 0)
	must(t, os.Chtimes(filepath.Join(src, "data.txt"), mtime, mtime))
	b := openTest(t, root)
	srcFd := dirFd(t, b, "src")

	for _, format := range []string{"tar", "tar.gz"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if format == "tar" {
				must(t, writeTar(&buf, b, srcFd))
			} else {
				gz := gzip.NewWriter(&buf)
				must(t, writeTar(gz, b, srcFd))
				must(t, gz.Close())
			}
			dest := filepath.Join(root, "copy-"+format)
			res, err := extractArchive(root, nil, dest, &buf)
			must(t, err)
			if res.Files != 3 || res.Bytes != int64(len("#!/bin/sh\necho hi\n")+4) {
				t.Fatalf("answer %+v", res)
			}
			perm := func(p string) os.FileMode {
				info, err := os.Lstat(filepath.Join(dest, p))
				must(t, err)
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
	root, _ := workspaceFixture(t)
	must(t, os.WriteFile(filepath.Join(root, "sub", "x.sh"), []byte("x"), 0o755))
	must(t, os.Symlink("a.txt", filepath.Join(root, "sub", "l")))
	var buf bytes.Buffer
	b := openTest(t, root)
	must(t, writeZip(&buf, b, dirFd(t, b, "sub")))
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	must(t, err)
	got := map[string]os.FileMode{}
	for _, f := range zr.File {
		got[f.Name] = f.Mode()
	}
	if got["x.sh"].Perm() != 0o755 || got["l"]&os.ModeSymlink == 0 || got["a.txt"].Perm() != 0o644 {
		t.Fatalf("entries %v", got)
	}
}

func TestDeleteAndMoveRefuseTheOutside(t *testing.T) {
	root, elsewhere := workspaceFixture(t)
	s := &Server{Workspace: root}
	rec := &recorder{header: http.Header{}}
	err := s.deletePath(rec, root+"/out/passwd", "")
	if codeOf(err) != "path_outside_workspace" {
		t.Fatalf("delete through a link out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "passwd")); err != nil {
		t.Fatal("deleted outside")
	}
	// Deleting the link itself is fine: what it points at stays.
	must(t, s.deletePath(rec, root+"/out", ""))
	if _, err := os.Stat(filepath.Join(elsewhere, "passwd")); err != nil {
		t.Fatal("deleting the link removed its target")
	}
	if err := s.deletePath(rec, root+"/sub", ""); codeOf(err) != "directory_not_empty" {
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
