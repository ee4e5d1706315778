package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// The file API (`/fs?path=…`): list, read, write, delete, mkdir and move, confined to the
// workspace. Every path is checked before anything is touched: absolute, no `..` segment,
// inside the workspace, and inside it still once symbolic links are followed; then every
// open, listing and change goes through package confine, relative to a directory fd of the root,
// where the kernel keeps it beneath that root whatever changed since the check.

// entry is a path whose own entry is acted on (delete, move): the folder it is in, opened
// beneath the root (links followed), and its name there, which may be a link.
type entry struct {
	dir  int
	name string
	info os.FileInfo
}

// resolveEntry opens requested's folder beneath the root; the caller closes e.dir.
func resolveEntry(b *confine.Root, requested string) (entry, error) {
	target, err := confine.CheckRequested(b.Root(), requested, false)
	if err != nil {
		return entry{}, err
	}
	dir, name, err := b.ParentOf(requested, b.RelOf(target), false)
	if errors.Is(err, fs.ErrNotExist) {
		return entry{}, confine.Refuse(http.StatusNotFound, "not_found", requested+" does not exist")
	}
	if err != nil {
		return entry{}, confine.AsRefusal(err)
	}
	info, err := confine.LstatAt(dir, name)
	if err != nil {
		unix.Close(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return entry{}, confine.Refuse(http.StatusNotFound, "not_found", requested+" does not exist")
		}
		return entry{}, err
	}
	return entry{dir, name, info}, nil
}

// listEntry is one entry of a folder listing, in the API's shape.
type listEntry struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Size       int64  `json:"size"`
	IsDir      bool   `json:"isDir"`
	Type       string `json:"type"`
	Mode       string `json:"mode"`
	ModifiedAt int64  `json:"modifiedAt"`
}

type listing struct {
	Path    string      `json:"path"`
	Entries []listEntry `json:"entries"`
}

// listDir lists the folder dir under the name the caller used for it; every entry is
// looked at with fstatat relative to dir, never by a path.
func listDir(shown string, dir *os.File) (listing, error) {
	fd := int(dir.Fd())
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return listing{}, err
	}
	sort.Strings(names)
	out := listing{Path: shown, Entries: make([]listEntry, 0, len(names))}
	for _, name := range names {
		info, err := confine.LstatAt(fd, name)
		if err != nil {
			continue // gone since the folder was read
		}
		out.Entries = append(out.Entries, entryOf(filepath.Join(shown, name), info))
	}
	return out, nil
}

func entryOf(path string, info os.FileInfo) listEntry {
	kind := "file"
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		kind = "symlink"
	case info.IsDir():
		kind = "dir"
	}
	return listEntry{
		Name:       filepath.Base(path),
		Path:       path,
		Size:       info.Size(),
		IsDir:      info.IsDir(),
		Type:       kind,
		Mode:       lsMode(info.Mode()),
		ModifiedAt: info.ModTime().Unix(),
	}
}

// lsMode writes a FileMode as `ls -l` does (`-rw-r--r--`, `drwxrwxrwt`, `-rwsr-xr-x`):
// the form the spec's origin's clients parse. fs.FileMode.String is not it: it prefixes
// flags (`urwxr-xr-x`, `dtrwxrwxrwx`, `Lrwxrwxrwx`) instead of folding them into the bits.
func lsMode(m os.FileMode) string {
	b := []byte("-rwxrwxrwx")
	switch {
	case m&fs.ModeDir != 0:
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	case m&fs.ModeIrregular != 0:
		b[0] = '?'
	}
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) == 0 {
			b[i+1] = '-'
		}
	}
	// setuid, setgid and sticky take the execute slot: lower case when it is also executable.
	special := func(set bool, at int, c byte) {
		if !set {
			return
		}
		if b[at] == 'x' {
			b[at] = c
		} else {
			b[at] = c - 'a' + 'A'
		}
	}
	special(m&fs.ModeSetuid != 0, 3, 's')
	special(m&fs.ModeSetgid != 0, 6, 's')
	special(m&fs.ModeSticky != 0, 9, 't')
	return string(b)
}

// serveFS is `/fs?path=…`: GET lists or reads, PUT writes, DELETE removes, POST mkdir or move.
func (s *Server) ServeFS(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	requested := q.Get("path")
	var err error
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		err = s.readPath(w, r, requested)
	case http.MethodPut:
		err = s.writePath(w, r, requested, q.Get("mode"))
	case http.MethodDelete:
		err = s.deletePath(w, requested, q.Get("recursive"))
	case http.MethodPost:
		err = s.postPath(w, r, requested)
	default:
		err = confine.Refuse(http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not served on /fs")
	}
	if err != nil {
		confine.WriteError(w, r, err)
	}
}

func (s *Server) readPath(w http.ResponseWriter, r *http.Request, requested string) error {
	b, rel, err := confine.OpenExisting(s.Workspace, requested, true)
	if err != nil {
		return err
	}
	defer b.Close()
	// O_NONBLOCK: a FIFO swapped in is answered not_a_file, not waited on forever.
	f, err := b.OpenFile(requested, rel, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.IsDir() {
		list, err := listDir(filepath.Clean(requested), f)
		if err != nil {
			return err
		}
		wire.WriteJSON(w, http.StatusOK, list)
		return nil
	}
	if !info.Mode().IsRegular() {
		return confine.Refuse(http.StatusBadRequest, "not_a_file", requested+" is neither a file nor a folder")
	}
	h := w.Header()
	h.Set("content-type", "application/octet-stream")
	h.Set("etag", fmt.Sprintf(`"%x-%x"`, info.Size(), info.ModTime().UnixNano()))
	// ServeContent answers Range (206), If-Range, If-None-Match and If-Modified-Since, and
	// copies from the file in small pieces.
	http.ServeContent(w, r, "", info.ModTime(), f)
	return nil
}

// parseMode reads `?mode=` (octal, such as 0755); ok is false when it is absent.
func parseMode(text string) (os.FileMode, bool, error) {
	if text == "" {
		return 0, false, nil
	}
	m, err := strconv.ParseUint(text, 8, 32)
	if err != nil || m > 0o7777 {
		return 0, false, confine.Refuse(http.StatusBadRequest, "bad_request", "mode must be octal permission bits, such as 0644 or 0755")
	}
	return confine.UnixMode(int64(m)), true, nil
}

type written struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Sha256 string `json:"sha256"`
}

func (s *Server) writePath(w http.ResponseWriter, r *http.Request, requested, modeText string) error {
	mode, hasMode, err := parseMode(modeText)
	if err != nil {
		return err
	}
	b, err := confine.Open(s.Workspace)
	if err != nil {
		return err
	}
	defer b.Close()
	b.Owner = s.Owner
	rel, err := confine.ResolveForWrite(b, requested)
	if err != nil {
		return err
	}
	dir, name, err := b.ParentOf(requested, rel, true)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	existed := false
	if info, err := confine.LstatAt(dir, name); err == nil {
		if info.IsDir() {
			return confine.Refuse(http.StatusConflict, "is_a_directory", requested+" is a folder")
		}
		existed = true
		if !hasMode {
			mode = info.Mode() & (fs.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
		}
	} else if !hasMode {
		mode = 0o644
	}
	size, sum, err := b.WriteAt(dir, name, r.Body, mode, time.Time{})
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if existed {
		status = http.StatusOK
	}
	wire.WriteJSON(w, status, written{filepath.Clean(requested), size, sum})
	return nil
}

func (s *Server) deletePath(w http.ResponseWriter, requested, recursive string) error {
	if recursive != "" && recursive != "true" && recursive != "false" {
		return confine.Refuse(http.StatusBadRequest, "bad_request", "recursive must be true or false")
	}
	b, err := confine.Open(s.Workspace)
	if err != nil {
		return err
	}
	defer b.Close()
	e, err := resolveEntry(b, requested)
	if err != nil {
		return err
	}
	defer unix.Close(e.dir)
	switch {
	case e.info.IsDir() && recursive == "true":
		err = b.RemoveAllAt(e.dir, e.name) // never follows links: a link inside goes, not what it points at
	case e.info.IsDir():
		err = unix.Unlinkat(e.dir, e.name, unix.AT_REMOVEDIR)
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return confine.Refuse(http.StatusConflict, "directory_not_empty", requested+" is a folder with entries: add ?recursive=true")
		}
	default:
		err = unix.Unlinkat(e.dir, e.name, 0)
	}
	if err != nil {
		return &os.PathError{Op: "remove", Path: requested, Err: err}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) postPath(w http.ResponseWriter, r *http.Request, requested string) error {
	line, err := io.ReadAll(io.LimitReader(r.Body, 64*1024))
	if err != nil {
		return err
	}
	var op struct {
		Op string  `json:"op"`
		To *string `json:"to"`
	}
	if json.Unmarshal(line, &op) != nil {
		return confine.Refuse(http.StatusBadRequest, "bad_request", `the body must be {"op":"mkdir"} or {"op":"move","to":"/workspace/…"}`)
	}
	if op.Op != "mkdir" && op.Op != "move" {
		return confine.Refuse(http.StatusBadRequest, "bad_request", `op must be "mkdir" or "move"`)
	}
	b, err := confine.Open(s.Workspace)
	if err != nil {
		return err
	}
	defer b.Close()
	b.Owner = s.Owner
	if op.Op == "mkdir" {
		rel, err := confine.ResolveForWrite(b, requested)
		if err != nil {
			return err
		}
		if info, err := b.Stat(requested, rel); err == nil {
			if !info.IsDir() {
				return confine.Refuse(http.StatusConflict, "already_exists", requested+" exists and is not a folder")
			}
			wire.WriteJSON(w, http.StatusOK, map[string]string{"path": filepath.Clean(requested)})
			return nil
		}
		if err := b.MkdirAll(requested, rel); err != nil {
			return err
		}
		wire.WriteJSON(w, http.StatusCreated, map[string]string{"path": filepath.Clean(requested)})
		return nil
	}
	if op.To == nil {
		return confine.Refuse(http.StatusBadRequest, "bad_request", "to is required for a move")
	}
	from, err := resolveEntry(b, requested)
	if err != nil {
		return err
	}
	defer unix.Close(from.dir)
	to, err := confine.CheckRequested(b.Root(), *op.To, false)
	if err != nil {
		return err
	}
	toDir, toName, err := b.ParentOf(*op.To, b.RelOf(to), false)
	if errors.Is(err, fs.ErrNotExist) { // its folder is missing: nothing there to clash with
		toDir, toName, err = b.ParentOf(*op.To, b.RelOf(to), true)
	}
	if err != nil {
		return confine.AsRefusal(err)
	}
	defer unix.Close(toDir)
	if _, err := confine.LstatAt(toDir, toName); err == nil {
		return confine.Refuse(http.StatusConflict, "already_exists", *op.To+" already exists")
	}
	// RENAME_NOREPLACE: an entry made since the look above is not replaced either. A volume
	// that does not know the flag answers EINVAL, and the plain rename then says what it means.
	err = unix.Renameat2(from.dir, from.name, toDir, toName, unix.RENAME_NOREPLACE)
	if errors.Is(err, syscall.EINVAL) {
		err = unix.Renameat(from.dir, from.name, toDir, toName)
	}
	switch {
	case errors.Is(err, syscall.EEXIST):
		return confine.Refuse(http.StatusConflict, "already_exists", *op.To+" already exists")
	case errors.Is(err, syscall.EINVAL):
		return confine.Refuse(http.StatusBadRequest, "bad_request", "a folder cannot move inside itself")
	case err != nil:
		return &os.PathError{Op: "rename", Path: requested, Err: err}
	}
	wire.WriteJSON(w, http.StatusOK, map[string]string{"path": filepath.Clean(*op.To)})
	return nil
}
