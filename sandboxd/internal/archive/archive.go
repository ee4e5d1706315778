// Package archive is the workspace's archive API (`/archive?path=…`): GET streams a zip, tar
// or tar.gz of a folder, PUT extracts a tar or tar.gz into one. Built on Go's archive/zip,
// archive/tar and compress/gzip, so nothing depends on the tools the image happens to have.
// Every entry is read or written through package confine, as the file API's paths are.
package archive

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
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine"
	"github.com/svc-dev/svc/sandboxd/internal/identity"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// maxArchiveEntries bounds what the validating pass remembers of an upload.
const maxArchiveEntries = 500_000

// Server serves the archive API on one workspace.
type Server struct {
	Workspace string
	Owner     *identity.Owner // who owns what is extracted; nil: sandboxd's own user
}

// ServeArchive is `/archive?path=…`: GET downloads (`format=zip|tar|tar.gz`), PUT extracts.
func (s *Server) ServeArchive(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var err error
	switch r.Method {
	case http.MethodGet:
		err = s.downloadArchive(w, q.Get("path"), q.Get("format"))
	case http.MethodPut:
		var res extracted
		res, err = extractArchive(s.Workspace, s.Owner, q.Get("path"), r.Body)
		if err == nil {
			wire.WriteJSON(w, http.StatusOK, res)
		}
	default:
		err = confine.Refuse(http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not served on /archive")
	}
	if err != nil {
		confine.WriteError(w, r, err)
	}
}

func (s *Server) downloadArchive(w http.ResponseWriter, requested, format string) error {
	if format == "" {
		format = "zip"
	}
	kinds := map[string]string{"zip": "application/zip", "tar": "application/x-tar", "tar.gz": "application/gzip"}
	if kinds[format] == "" {
		return confine.Refuse(http.StatusBadRequest, "bad_request", "format must be zip, tar or tar.gz")
	}
	b, rel, err := confine.OpenExisting(s.Workspace, requested, true)
	if err != nil {
		return err
	}
	defer b.Close()
	fd, err := b.OpenAt(b.FD(), rel, unix.O_PATH|unix.O_DIRECTORY, 0)
	if errors.Is(err, syscall.ENOTDIR) {
		return confine.Refuse(http.StatusBadRequest, "not_a_directory", requested+" is not a folder")
	} else if err != nil {
		return b.PathErr("open", requested, err)
	}
	defer unix.Close(fd)
	name := filepath.Base(filepath.Clean(requested))
	w.Header().Set("content-type", kinds[format])
	w.Header().Set("content-disposition", fmt.Sprintf(`attachment; filename="%s.%s"`, strings.ReplaceAll(name, `"`, ""), format))
	w.WriteHeader(http.StatusOK)
	switch format {
	case "zip":
		err = writeZip(w, b, fd)
	case "tar":
		err = writeTar(w, b, fd)
	default:
		gz := gzip.NewWriter(w)
		if err = writeTar(gz, b, fd); err == nil {
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

// writeTar writes the folder dir (an fd opened beneath the root) as a tar; every entry is
// read relative to the folder it is in (confine's WalkAt), links as links.
func writeTar(out io.Writer, b *confine.Root, dir int) error {
	tw := tar.NewWriter(out)
	buf := make([]byte, confine.CopyBufferBytes)
	err := b.WalkAt(dir, "", func(name string, dirfd int, base string, info os.FileInfo) error {
		link := ""
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := confine.ReadlinkAt(dirfd, base)
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
		return copyFileTo(b, tw, dirfd, base, hdr.Size, buf)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func writeZip(out io.Writer, b *confine.Root, dir int) error {
	zw := zip.NewWriter(out)
	buf := make([]byte, confine.CopyBufferBytes)
	err := b.WalkAt(dir, "", func(name string, dirfd int, base string, info os.FileInfo) error {
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
			target, err := confine.ReadlinkAt(dirfd, base)
			if err != nil {
				return err
			}
			_, err = io.WriteString(entry, target)
			return err
		}
		if info.IsDir() {
			return nil
		}
		return copyFileTo(b, entry, dirfd, base, info.Size(), buf)
	})
	if err != nil {
		return err
	}
	return zw.Close()
}

// copyFileTo copies exactly size bytes of the file name in the folder dirfd (the size its
// header announced, should the file have changed since). O_NOFOLLOW: a link swapped in is an
// error, never followed; O_NONBLOCK: a FIFO swapped in is not waited on.
func copyFileTo(b *confine.Root, out io.Writer, dirfd int, name string, size int64, buf []byte) error {
	fd, err := b.OpenAt(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
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
	return confine.Refuse(http.StatusBadRequest, "path_outside_workspace", "archive entry "+name+": "+why)
}

// extractArchive writes a tar or tar.gz into the folder requested (created if missing). The
// upload is first spooled to a temporary file in the workspace while every entry is checked;
// only when all of them land inside the workspace does the second pass write anything. Files
// are written like a PUT (temporary sibling, then rename), folders' modes and times are set
// last (so a read-only folder can still be filled), links last but one.
func extractArchive(root string, own *identity.Owner, requested string, body io.Reader) (extracted, error) {
	b, err := confine.Open(root)
	if err != nil {
		return extracted{}, err
	}
	defer b.Close()
	b.Owner = own
	target, err := confine.CheckRequested(b.Root(), requested, true)
	if err != nil {
		return extracted{}, err
	}
	d, err := b.Resolve(requested, b.RelOf(target), true)
	if err != nil {
		return extracted{}, confine.AsRefusal(err)
	}
	dest := d.Rel // links on the way followed: every entry is named relative to it
	if info, err := b.Stat(requested, dest); err == nil && !info.IsDir() {
		return extracted{}, confine.Refuse(http.StatusConflict, "not_a_directory", requested+" exists and is not a folder")
	}
	spoolName := ".svc-archive-" + confine.RandomHex(6)
	fd, err := b.OpenAt(b.FD(), spoolName, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return extracted{}, &os.PathError{Op: "create", Path: b.Abs(spoolName), Err: err}
	}
	spool := os.NewFile(uintptr(fd), spoolName)
	defer unix.Unlinkat(b.FD(), spoolName, 0)
	defer spool.Close()

	// Pass 1: spool and validate.
	entries, err := validateArchive(b, dest, io.TeeReader(body, spool))
	if err != nil {
		return extracted{}, err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return extracted{}, err
	}
	// Pass 2: write, every entry relative to its folder opened beneath the root.
	tr, err := openTar(spool)
	if err != nil {
		return extracted{}, err
	}
	relOf := func(name string) string { return path.Join(dest, name) }
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
		switch e.typeflag {
		case tar.TypeDir:
			err = extractDir(b, relOf(e.name))
			dirs = append(dirs, e)
		case tar.TypeReg:
			var dir int
			var name string
			if dir, name, err = b.ParentOf(e.name, relOf(e.name), true); err == nil {
				_, _, err = b.WriteAt(dir, name, tr, e.mode, e.modTime)
				unix.Close(dir)
			}
			res.Files++
			res.Bytes += e.size
		default:
			links = append(links, e)
		}
		if err != nil {
			return res, err
		}
	}
	for _, e := range links {
		if err := extractLink(b, e, relOf(e.name), relOf(e.linkname)); err != nil {
			return res, err
		}
		res.Files++
	}
	// Deepest first, so setting a parent's time is the last change inside it.
	sort.Slice(dirs, func(a, b int) bool { return dirs[a].name > dirs[b].name })
	for _, e := range dirs {
		if err := settleDir(b, relOf(e.name), e.mode, e.modTime); err != nil {
			return res, err
		}
	}
	return res, nil
}

// extractDir makes the folder rel, replacing a link of that name (a link is never a folder
// an archive writes through).
func extractDir(b *confine.Root, rel string) error {
	dir, name, err := b.ParentOf(rel, rel, true)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if info, err := confine.LstatAt(dir, name); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		if err := unix.Unlinkat(dir, name, 0); err != nil {
			return &os.PathError{Op: "remove", Path: rel, Err: err}
		}
	}
	err = unix.Mkdirat(dir, name, 0o755)
	if err == nil {
		err = b.Owner.ClaimNew(dir, name, unix.S_IFDIR)
	}
	if err != nil && err != unix.EEXIST {
		return &os.PathError{Op: "mkdir", Path: rel, Err: err}
	}
	if info, err := confine.LstatAt(dir, name); err != nil || !info.IsDir() {
		return &os.PathError{Op: "mkdir", Path: rel, Err: syscall.ENOTDIR}
	}
	return nil
}

// extractLink makes the symbolic or hard link e at rel, replacing what is there but a folder;
// a hard link's source (linkRel) is found beneath the root too, and never followed.
func extractLink(b *confine.Root, e archiveEntry, rel, linkRel string) error {
	dir, name, err := b.ParentOf(rel, rel, true)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if info, err := confine.LstatAt(dir, name); err == nil && !info.IsDir() {
		if err := unix.Unlinkat(dir, name, 0); err != nil {
			return &os.PathError{Op: "remove", Path: rel, Err: err}
		}
	}
	if e.typeflag == tar.TypeSymlink {
		if err = unix.Symlinkat(e.linkname, dir, name); err == nil {
			err = b.Owner.ClaimNew(dir, name, unix.S_IFLNK)
		}
	} else { // a hard link is a second name of a file already there: its owner stays
		var src int
		var srcName string
		if src, srcName, err = b.ParentOf(linkRel, linkRel, false); err != nil {
			return err
		}
		err = unix.Linkat(src, srcName, dir, name, 0)
		unix.Close(src)
	}
	if err != nil {
		return &os.PathError{Op: "link", Path: rel, Err: err}
	}
	return nil
}

// settleDir gives the folder rel its mode (less setuid and setgid) and time, through an fd
// opened beneath the root without following a link swapped in for it.
func settleDir(b *confine.Root, rel string, mode os.FileMode, mtime time.Time) error {
	dir, name, err := b.ParentOf(rel, rel, false)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	fd, err := b.OpenAt(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return b.PathErr("chmod", rel, err)
	}
	err = unix.Fchmod(fd, confine.UnixPerm(confine.SafeMode(mode)))
	unix.Close(fd)
	if err != nil {
		return &os.PathError{Op: "chmod", Path: rel, Err: err}
	}
	ts := unix.NsecToTimespec(mtime.UnixNano())
	_ = unix.UtimesNanoAt(dir, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
	return nil
}

// openTar reads a tar, gzip-compressed or not (told apart by gzip's magic bytes).
func openTar(r io.Reader) (*tar.Reader, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, confine.Refuse(http.StatusBadRequest, "bad_archive", "not a readable tar.gz: "+err.Error())
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
func validateArchive(b *confine.Root, dest string, body io.Reader) ([]archiveEntry, error) {
	destAbs := b.Abs(dest)
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
			if confine.IsNoSpace(err) {
				return nil, err
			}
			return nil, confine.Refuse(http.StatusBadRequest, "bad_archive", "not a readable tar or tar.gz: "+err.Error())
		}
		if !carried(hdr) {
			continue
		}
		if len(entries) >= maxArchiveEntries {
			return nil, confine.Refuse(http.StatusBadRequest, "bad_archive", fmt.Sprintf("more than %d entries", maxArchiveEntries))
		}
		e, err := checkEntry(b, destAbs, hdr, kinds)
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
			if err := checkLinkTarget(b, destAbs, e, kinds); err != nil {
				return nil, err
			}
		}
	}
	return entries, nil
}

func checkEntry(b *confine.Root, dest string, hdr *tar.Header, kinds map[string]byte) (archiveEntry, error) {
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
	e := archiveEntry{name: name, linkname: hdr.Linkname, mode: confine.UnixMode(hdr.Mode & 0o7777), modTime: hdr.ModTime, size: hdr.Size}
	target := filepath.Join(dest, filepath.FromSlash(name))
	// Existing links on the way to it must stay inside too.
	rel, err := confine.ResolveInside(b, target)
	if err != nil {
		return e, confine.AsRefusal(err)
	}
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA:
		e.typeflag = tar.TypeReg
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
		return e, confine.Refuse(http.StatusBadRequest, "bad_archive", fmt.Sprintf("archive entry %s: type %q is not a file, folder or link", raw, hdr.Typeflag))
	}
	if info, err := b.Lstat(target, rel); err == nil && info.IsDir() && e.typeflag != tar.TypeDir {
		return e, confine.Refuse(http.StatusConflict, "is_a_directory", "archive entry "+raw+": a folder of that name exists")
	}
	return e, nil
}

// checkLinkTarget refuses a symbolic link that points outside the workspace. Its target is
// followed segment by segment from the link's folder; a `..` is only taken lexically when
// what it climbs out of is no link (of the archive or on disk), since a `..` after a link
// climbs from wherever the link leads. What the target names must, once links on disk are
// followed, be inside the workspace too.
func checkLinkTarget(b *confine.Root, dest string, e archiveEntry, kinds map[string]byte) error {
	root := b.Root()
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
		if p != root && !confine.Inside(root, p) {
			return false // an ancestor of the workspace: not the archive's to change
		}
		info, err := b.Lstat(p, b.RelOf(p))
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
		if cur != root && !confine.Inside(root, cur) && !(strings.HasPrefix(e.linkname, "/") && isPrefixOf(cur, root)) {
			return refusedEntry(e.name, "a link to "+e.linkname+", outside the workspace")
		}
	}
	if cur != root && !confine.Inside(root, cur) {
		return refusedEntry(e.name, "a link to "+e.linkname+", outside the workspace")
	}
	if _, err := confine.ResolveInside(b, filepath.Join(cur, "x")); err != nil {
		return refusedEntry(e.name, "a link to "+e.linkname+", which leads outside the workspace")
	}
	return nil
}

// isPrefixOf reports whether p is root or one of its ancestors (an absolute link's target
// passes through them on its way in).
func isPrefixOf(p, root string) bool {
	return p == "/" || p == root || strings.HasPrefix(root, p+"/")
}
