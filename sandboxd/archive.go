package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Archives of a workspace folder (`/archive?path=…`): GET streams a zip, tar or tar.gz of it,
// PUT extracts a tar or tar.gz into it. Built on Go's archive/zip, archive/tar and
// compress/gzip, so nothing depends on the tools the image happens to have.

// maxArchiveEntries bounds what the validating pass remembers of an upload.
const maxArchiveEntries = 500_000

func (s *server) serveArchive(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var err error
	switch r.Method {
	case http.MethodGet:
		err = s.downloadArchive(w, q.Get("path"), q.Get("format"))
	case http.MethodPut:
		var res extracted
		res, err = extractArchive(s.workspace, q.Get("path"), r.Body)
		if err == nil {
			writeJSON(w, http.StatusOK, res)
		}
	default:
		err = &fsError{http.StatusMethodNotAllowed, "method_not_allowed", r.Method + " is not served on /archive"}
	}
	if err != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		writeFsError(w, err)
	}
}

func (s *server) downloadArchive(w http.ResponseWriter, requested, format string) error {
	if format == "" {
		format = "zip"
	}
	kinds := map[string]string{"zip": "application/zip", "tar": "application/x-tar", "tar.gz": "application/gzip"}
	if kinds[format] == "" {
		return &fsError{http.StatusBadRequest, "bad_request", "format must be zip, tar or tar.gz"}
	}
	real, err := resolveExisting(s.workspace, requested, true)
	if err != nil {
		return err
	}
	if info, err := os.Stat(real); err != nil {
		return err
	} else if !info.IsDir() {
		return &fsError{http.StatusBadRequest, "not_a_directory", requested + " is not a folder"}
	}
	name := filepath.Base(filepath.Clean(requested))
	w.Header().Set("content-type", kinds[format])
	w.Header().Set("content-disposition", fmt.Sprintf(`attachment; filename="%s.%s"`, strings.ReplaceAll(name, `"`, ""), format))
	w.WriteHeader(http.StatusOK)
	switch format {
	case "zip":
		err = writeZip(w, real)
	case "tar":
		err = writeTar(w, real)
	default:
		gz := gzip.NewWriter(w)
		if err = writeTar(gz, real); err == nil {
			err = gz.Close()
		}
	}
	if err != nil {
		// The status is sent: break the stream off so the client never takes a truncated
		// archive for a whole one.
		panic(http.ErrAbortHandler)
	}
	return nil
}

// walkArchive calls visit for every entry below dir (not dir itself), in lexical order,
// with its slash-separated name relative to dir. Links are entries, never followed.
func walkArchive(dir string, visit func(name, full string, info os.FileInfo) error) error {
	return filepath.WalkDir(dir, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if full == dir {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone while we walked
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, full)
		if err != nil {
			return err
		}
		return visit(filepath.ToSlash(rel), full, info)
	})
}

func writeTar(out io.Writer, dir string) error {
	tw := tar.NewWriter(out)
	buf := make([]byte, copyBufferBytes)
	err := walkArchive(dir, func(name, full string, info os.FileInfo) error {
		link := ""
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(full)
			if err != nil {
				return err
			}
			link = target
		case info.IsDir(), info.Mode().IsRegular():
		default:
			return nil // sockets, fifos and devices are not files to carry
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = name
		if info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname = "", ""
		hdr.Format = tar.FormatPAX // long names and exact times
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		return copyFileTo(tw, full, hdr.Size, buf)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func writeZip(out io.Writer, dir string) error {
	zw := zip.NewWriter(out)
	buf := make([]byte, copyBufferBytes)
	err := walkArchive(dir, func(name, full string, info os.FileInfo) error {
		isLink := info.Mode()&fs.ModeSymlink != 0
		if !isLink && !info.IsDir() && !info.Mode().IsRegular() {
			return nil
		}
		hdr, err := zip.FileInfoHeader(info)
		if err != nil {
			return err
		}
		hdr.Name = name
		switch {
		case info.IsDir():
			hdr.Name += "/"
		case info.Mode().IsRegular():
			hdr.Method = zip.Deflate
		}
		entry, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if isLink {
			// A zip keeps a link as an entry with the link mode whose content is its target.
			target, err := os.Readlink(full)
			if err != nil {
				return err
			}
			_, err = io.WriteString(entry, target)
			return err
		}
		if info.IsDir() {
			return nil
		}
		return copyFileTo(entry, full, info.Size(), buf)
	})
	if err != nil {
		return err
	}
	return zw.Close()
}

// copyFileTo copies exactly size bytes of the file (the size its header announced, should
// the file have changed since).
func copyFileTo(out io.Writer, full string, size int64, buf []byte) error {
	f, err := os.Open(full)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.CopyBuffer(out, io.LimitReader(f, size), buf)
	if err != nil {
		return err
	}
	if n < size { // the file shrank: pad, so the archive stays well formed
		_, err = io.CopyBuffer(out, io.LimitReader(zeros{}, size-n), buf)
	}
	return err
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// extracted is the answer of an upload: the entries written (files and links) and their bytes.
type extracted struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// archiveEntry is what the validating pass keeps of one entry, for the writing pass.
type archiveEntry struct {
	name     string // clean, slash-separated, relative to the destination
	typeflag byte
	linkname string
	mode     os.FileMode
	modTime  time.Time
	size     int64
}

func refusedEntry(name, why string) error {
	return &fsError{http.StatusBadRequest, "path_outside_workspace", "archive entry " + name + ": " + why}
}

// extractArchive writes a tar or tar.gz into the folder requested (created if missing). The
// upload is first spooled to a temporary file in the workspace while every entry is checked;
// only when all of them land inside the workspace does the second pass write anything. Files
// are written like a PUT (temporary sibling, then rename), folders' modes and times are set
// last (so a read-only folder can still be filled), links last but one.
func extractArchive(root, requested string, body io.Reader) (extracted, error) {
	dest, err := checkRequested(root, requested, true)
	if err != nil {
		return extracted{}, err
	}
	if dest != filepath.Clean(root) {
		if _, err := resolveInside(root, dest); err != nil {
			return extracted{}, asFsError(err)
		}
	}
	if info, err := os.Stat(dest); err == nil && !info.IsDir() {
		return extracted{}, &fsError{http.StatusConflict, "not_a_directory", requested + " exists and is not a folder"}
	}
	spool, err := os.CreateTemp(root, ".svc-archive-")
	if err != nil {
		return extracted{}, err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()

	// Pass 1: spool and validate.
	entries, err := validateArchive(root, dest, io.TeeReader(body, spool))
	if err != nil {
		return extracted{}, err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return extracted{}, err
	}
	// Pass 2: write.
	tr, err := openTar(spool)
	if err != nil {
		return extracted{}, err
	}
	var res extracted
	var dirs, links []archiveEntry
	for i := 0; ; {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, err
		}
		if !carried(hdr) {
			continue
		}
		e := entries[i]
		i++
		target := filepath.Join(dest, filepath.FromSlash(e.name))
		switch e.typeflag {
		case tar.TypeDir:
			if info, err := os.Lstat(target); err == nil && info.Mode()&fs.ModeSymlink != 0 {
				if err := os.Remove(target); err != nil {
					return res, err
				}
			}
			if err := os.MkdirAll(target, 0o755); err != nil {
				return res, err
			}
			dirs = append(dirs, e)
		case tar.TypeReg:
			if _, _, err := writeAtomically(target, tr, e.mode); err != nil {
				return res, err
			}
			_ = os.Chtimes(target, e.modTime, e.modTime)
			res.Files++
			res.Bytes += e.size
		default:
			links = append(links, e)
		}
	}
	for _, e := range links {
		target := filepath.Join(dest, filepath.FromSlash(e.name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return res, err
		}
		if info, err := os.Lstat(target); err == nil && !info.IsDir() {
			if err := os.Remove(target); err != nil {
				return res, err
			}
		}
		if e.typeflag == tar.TypeSymlink {
			err = os.Symlink(e.linkname, target)
		} else {
			err = os.Link(filepath.Join(dest, filepath.FromSlash(e.linkname)), target)
		}
		if err != nil {
			return res, err
		}
		res.Files++
	}
	// Deepest first, so setting a parent's time is the last change inside it.
	sort.Slice(dirs, func(a, b int) bool { return dirs[a].name > dirs[b].name })
	for _, e := range dirs {
		target := filepath.Join(dest, filepath.FromSlash(e.name))
		if err := os.Chmod(target, e.mode); err != nil {
			return res, err
		}
		_ = os.Chtimes(target, e.modTime, e.modTime)
	}
	return res, nil
}

// openTar reads a tar, gzip-compressed or not (told apart by gzip's magic bytes).
func openTar(r io.Reader) (*tar.Reader, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &fsError{http.StatusBadRequest, "bad_archive", "not a readable tar.gz: " + err.Error()}
		}
		return tar.NewReader(gz), nil
	}
	return tar.NewReader(br), nil
}

// carried reports whether an entry is one extraction writes (global PAX headers are not).
func carried(hdr *tar.Header) bool {
	return hdr.Typeflag != tar.TypeXGlobalHeader && cleanName(hdr.Name) != "."
}

func cleanName(name string) string {
	return path.Clean(strings.TrimPrefix(name, "./"))
}

// validateArchive reads the whole archive and returns its entries, or the first reason one
// would land outside the workspace. Nothing is written but the spool its reader feeds.
func validateArchive(root, dest string, body io.Reader) ([]archiveEntry, error) {
	tr, err := openTar(body)
	if err != nil {
		return nil, err
	}
	var entries []archiveEntry
	kinds := map[string]byte{} // name → type, the last entry of a name winning
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if isNoSpace(err) {
				return nil, err
			}
			return nil, &fsError{http.StatusBadRequest, "bad_archive", "not a readable tar or tar.gz: " + err.Error()}
		}
		if !carried(hdr) {
			continue
		}
		if len(entries) >= maxArchiveEntries {
			return nil, &fsError{http.StatusBadRequest, "bad_archive", fmt.Sprintf("more than %d entries", maxArchiveEntries)}
		}
		e, err := checkEntry(root, dest, hdr, kinds)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
		kinds[e.name] = e.typeflag
	}
	// No entry may be written through a link the archive itself makes, whatever the order.
	for _, e := range entries {
		for dir := path.Dir(e.name); dir != "."; dir = path.Dir(dir) {
			if kinds[dir] == tar.TypeSymlink {
				return nil, refusedEntry(e.name, "lies below "+dir+", a symbolic link in the same archive")
			}
		}
		if e.typeflag == tar.TypeSymlink {
			if err := checkLinkTarget(root, dest, e, kinds); err != nil {
				return nil, err
			}
		}
	}
	return entries, nil
}

func checkEntry(root, dest string, hdr *tar.Header, kinds map[string]byte) (archiveEntry, error) {
	raw := hdr.Name
	if strings.HasPrefix(raw, "/") {
		return archiveEntry{}, refusedEntry(raw, "an absolute name")
	}
	if strings.ContainsRune(raw, 0) {
		return archiveEntry{}, refusedEntry(raw, "a NUL in the name")
	}
	for _, seg := range strings.Split(raw, "/") {
		if seg == ".." {
			return archiveEntry{}, refusedEntry(raw, "a .. in the name")
		}
	}
	name := cleanName(raw)
	e := archiveEntry{name: name, linkname: hdr.Linkname, mode: unixMode(hdr.Mode & 0o7777), modTime: hdr.ModTime, size: hdr.Size}
	target := filepath.Join(dest, filepath.FromSlash(name))
	// Existing links on the way to it must stay inside too.
	if _, err := resolveInside(root, target); err != nil {
		return e, asFsError(err)
	}
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA:
		e.typeflag = tar.TypeReg
		if info, err := os.Lstat(target); err == nil && info.IsDir() {
			return e, &fsError{http.StatusConflict, "is_a_directory", "archive entry " + raw + ": a folder of that name exists"}
		}
	case tar.TypeDir:
		e.typeflag = tar.TypeDir
	case tar.TypeSymlink:
		e.typeflag = tar.TypeSymlink
		if hdr.Linkname == "" || strings.ContainsRune(hdr.Linkname, 0) {
			return e, refusedEntry(raw, "a link without a target")
		}
	case tar.TypeLink:
		e.typeflag = tar.TypeLink
		link := hdr.Linkname
		if strings.HasPrefix(link, "/") || strings.Contains("/"+link+"/", "/../") {
			return e, refusedEntry(raw, "a hard link to "+link+", outside the archive")
		}
		e.linkname = cleanName(link)
		if kinds[e.linkname] != tar.TypeReg {
			return e, refusedEntry(raw, "a hard link to "+link+", which is not an earlier file of the archive")
		}
	default:
		return e, &fsError{http.StatusBadRequest, "bad_archive", fmt.Sprintf("archive entry %s: type %q is not a file, folder or link", raw, hdr.Typeflag)}
	}
	if info, err := os.Lstat(target); err == nil && info.IsDir() && e.typeflag != tar.TypeDir {
		return e, &fsError{http.StatusConflict, "is_a_directory", "archive entry " + raw + ": a folder of that name exists"}
	}
	return e, nil
}

// checkLinkTarget refuses a symbolic link that points outside the workspace. Its target is
// followed segment by segment from the link's folder; a `..` is only taken lexically when
// what it climbs out of is no link (of the archive or on disk), since a `..` after a link
// climbs from wherever the link leads. What the target names must, once links on disk are
// followed, be inside the workspace too.
func checkLinkTarget(root, dest string, e archiveEntry, kinds map[string]byte) error {
	root = filepath.Clean(root)
	linkDir := filepath.Dir(filepath.Join(dest, filepath.FromSlash(e.name)))
	cur := linkDir
	if strings.HasPrefix(e.linkname, "/") {
		cur = "/"
	}
	isLink := func(p string) bool {
		if rel, err := filepath.Rel(dest, p); err == nil && !strings.HasPrefix(rel, "..") {
			if k, ok := kinds[filepath.ToSlash(rel)]; ok {
				return k == tar.TypeSymlink
			}
		}
		info, err := os.Lstat(p)
		return err == nil && info.Mode()&fs.ModeSymlink != 0
	}
	for _, seg := range strings.Split(e.linkname, "/") {
		switch seg {
		case "", ".":
		case "..":
			if isLink(cur) {
				return refusedEntry(e.name, "a link to "+e.linkname+", whose .. climbs out of a link")
			}
			cur = filepath.Dir(cur)
		default:
			cur = filepath.Join(cur, seg)
		}
		if cur != root && !inside(root, cur) && !(strings.HasPrefix(e.linkname, "/") && isPrefixOf(cur, root)) {
			return refusedEntry(e.name, "a link to "+e.linkname+", outside the workspace")
		}
	}
	if cur != root && !inside(root, cur) {
		return refusedEntry(e.name, "a link to "+e.linkname+", outside the workspace")
	}
	if _, err := resolveInside(root, filepath.Join(cur, "x")); err != nil {
		return refusedEntry(e.name, "a link to "+e.linkname+", which leads outside the workspace")
	}
	return nil
}

// isPrefixOf reports whether p is root or one of its ancestors (an absolute link's target
// passes through them on its way in).
func isPrefixOf(p, root string) bool {
	return p == "/" || p == root || strings.HasPrefix(root, p+"/")
}
