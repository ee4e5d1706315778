package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The file API (`/fs?path=…`): list, read, write, delete, mkdir and move, confined to the
// workspace. Every path is checked before anything is touched: absolute, no `..` segment,
// inside the workspace, and inside it still once symbolic links are followed.

// copyBufferBytes is the one buffer a transfer uses: memory stays flat however large the file.
const copyBufferBytes = 256 * 1024

// fsError is a refusal with its HTTP status and error code.
type fsError struct {
	status int
	code   string
	msg    string
}

func (e *fsError) Error() string { return e.msg }

func outside(path, why string) error {
	return &fsError{http.StatusBadRequest, "path_outside_workspace", path + ": " + why}
}

// checkRequested refuses what is not an absolute, `..`-free path inside root (root itself
// only when allowRoot), before the filesystem is asked anything.
func checkRequested(root, requested string, allowRoot bool) (string, error) {
	if requested == "" {
		return "", &fsError{http.StatusBadRequest, "bad_request", "path is required"}
	}
	if !filepath.IsAbs(requested) {
		return "", outside(requested, "must be an absolute path")
	}
	if strings.ContainsRune(requested, 0) {
		return "", outside(requested, "must not contain NUL")
	}
	for _, seg := range strings.Split(requested, "/") {
		if seg == ".." {
			return "", outside(requested, "must not contain ..")
		}
	}
	target := filepath.Clean(requested)
	root = filepath.Clean(root)
	if !(inside(root, target) || (allowRoot && target == root)) {
		return "", outside(requested, "must be inside "+root)
	}
	return target, nil
}

// resolveExisting is where an existing path really is, links followed: refused when that is
// outside root, 404 when nothing is there.
func resolveExisting(root, requested string, allowRoot bool) (string, error) {
	target, err := checkRequested(root, requested, allowRoot)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(target)
	if errors.Is(err, fs.ErrNotExist) {
		// A missing path under a link that leads out is still a refusal, not a 404.
		if target != root {
			if _, rerr := resolveInside(root, target); rerr != nil {
				return "", asFsError(rerr)
			}
		}
		return "", &fsError{http.StatusNotFound, "not_found", requested + " does not exist"}
	}
	if err != nil {
		return "", err
	}
	if real != realRoot && !inside(realRoot, real) {
		return "", outside(requested, "resolves outside "+root+" through a symbolic link")
	}
	if real == realRoot && !allowRoot {
		return "", outside(requested, "resolves to "+root+" itself")
	}
	return real, nil
}

// resolveForWrite is where requested may be created or replaced: the path itself when it is
// not a link, or the link's destination when that is inside root.
func resolveForWrite(root, requested string) (string, error) {
	target, err := checkRequested(root, requested, false)
	if err != nil {
		return "", err
	}
	if _, err := resolveInside(root, target); err != nil {
		return "", asFsError(err)
	}
	if info, err := os.Lstat(target); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return resolveExisting(root, requested, false)
	}
	return target, nil
}

// resolveEntry is a path whose own entry is acted on (delete, move): its folder must be
// inside root, links followed, but the entry itself may be a link (the link is what moves).
func resolveEntry(root, requested string) (string, os.FileInfo, error) {
	target, err := checkRequested(root, requested, false)
	if err != nil {
		return "", nil, err
	}
	if _, err := resolveInside(root, target); err != nil {
		return "", nil, asFsError(err)
	}
	info, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, &fsError{http.StatusNotFound, "not_found", requested + " does not exist"}
	}
	return target, info, err
}

func asFsError(err error) error {
	var refused *pathRefused
	if errors.As(err, &refused) {
		return outside(refused.path, refused.why)
	}
	return err
}

// listEntry is one entry of a folder listing, in the API's shape.
type listEntry struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Size       int64  `json:"size"`
	IsDir      bool   `json:"isDir"`
	Type       string `json:"type"`
	Mode       uint32 `json:"mode"`
	ModifiedAt int64  `json:"modifiedAt"`
}

type listing struct {
	Path    string      `json:"path"`
	Entries []listEntry `json:"entries"`
}

// listDir lists real (a folder) under the name the caller used for it.
func listDir(shown, real string) (listing, error) {
	dirents, err := os.ReadDir(real)
	if err != nil {
		return listing{}, err
	}
	out := listing{Path: shown, Entries: make([]listEntry, 0, len(dirents))}
	for _, d := range dirents {
		info, err := d.Info()
		if err != nil {
			continue // gone since the folder was read
		}
		out.Entries = append(out.Entries, entryOf(filepath.Join(shown, d.Name()), info))
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
		Mode:       unixPerm(info.Mode()),
		ModifiedAt: info.ModTime().Unix(),
	}
}

// unixPerm is the numeric permission bits (with setuid, setgid, sticky) of a FileMode.
func unixPerm(m os.FileMode) uint32 {
	out := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		out |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		out |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		out |= 0o1000
	}
	return out
}

// serveFS is `/fs?path=…`: GET lists or reads, PUT writes, DELETE removes, POST mkdir or move.
func (s *server) serveFS(w http.ResponseWriter, r *http.Request) {
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
		err = &fsError{http.StatusMethodNotAllowed, "method_not_allowed", r.Method + " is not served on /fs"}
	}
	if err != nil {
		// Whatever the caller still sends is read, so it sees the answer.
		_, _ = io.Copy(io.Discard, r.Body)
		writeFsError(w, err)
	}
}

func writeFsError(w http.ResponseWriter, err error) {
	var fe *fsError
	switch {
	case errors.As(err, &fe):
		writeJSON(w, fe.status, errorBody{fe.code, fe.msg})
	case isNoSpace(err):
		writeJSON(w, http.StatusInsufficientStorage, errorBody{"insufficient_storage", "the workspace volume is full: " + err.Error()})
	case errors.Is(err, fs.ErrPermission):
		writeJSON(w, http.StatusForbidden, errorBody{"permission_denied", err.Error()})
	case errors.Is(err, syscall.ENOTDIR):
		writeJSON(w, http.StatusConflict, errorBody{"not_a_directory", err.Error()})
	default:
		writeJSON(w, http.StatusInternalServerError, errorBody{"internal", err.Error()})
	}
}

func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

func (s *server) readPath(w http.ResponseWriter, r *http.Request, requested string) error {
	real, err := resolveExisting(s.workspace, requested, true)
	if err != nil {
		return err
	}
	f, err := os.Open(real)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.IsDir() {
		list, err := listDir(filepath.Clean(requested), real)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, list)
		return nil
	}
	if !info.Mode().IsRegular() {
		return &fsError{http.StatusBadRequest, "not_a_file", requested + " is neither a file nor a folder"}
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
		return 0, false, &fsError{http.StatusBadRequest, "bad_request", "mode must be octal permission bits, such as 0644 or 0755"}
	}
	return unixMode(int64(m)), true, nil
}

type written struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Sha256 string `json:"sha256"`
}

func (s *server) writePath(w http.ResponseWriter, r *http.Request, requested, modeText string) error {
	mode, hasMode, err := parseMode(modeText)
	if err != nil {
		return err
	}
	target, err := resolveForWrite(s.workspace, requested)
	if err != nil {
		return err
	}
	existed := false
	if info, err := os.Stat(target); err == nil {
		if info.IsDir() {
			return &fsError{http.StatusConflict, "is_a_directory", requested + " is a folder"}
		}
		existed = true
		if !hasMode {
			mode = info.Mode() & (fs.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
		}
	} else if !hasMode {
		mode = 0o644
	}
	size, sum, err := writeAtomically(target, r.Body, mode)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if existed {
		status = http.StatusOK
	}
	writeJSON(w, status, written{filepath.Clean(requested), size, sum})
	return nil
}

// writeAtomically streams body into a temporary sibling of target and renames it into place,
// creating target's folders: a failure (a full volume, a body cut short) leaves nothing.
func writeAtomically(target string, body io.Reader, mode os.FileMode) (int64, string, error) {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return 0, "", err
	}
	temp := filepath.Join(filepath.Dir(target), ".svc-tmp-"+randomHex(6))
	out, err := os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, "", err
	}
	hash := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(out, hash), struct{ io.Reader }{body}, make([]byte, copyBufferBytes))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(temp, mode) // the exact bits, whatever the umask
	}
	if err == nil {
		err = os.Rename(temp, target)
	}
	if err != nil {
		_ = os.Remove(temp)
		return 0, "", err
	}
	return n, hex.EncodeToString(hash.Sum(nil)), nil
}

func (s *server) deletePath(w http.ResponseWriter, requested, recursive string) error {
	if recursive != "" && recursive != "true" && recursive != "false" {
		return &fsError{http.StatusBadRequest, "bad_request", "recursive must be true or false"}
	}
	target, info, err := resolveEntry(s.workspace, requested)
	if err != nil {
		return err
	}
	if info.IsDir() && recursive == "true" {
		err = os.RemoveAll(target) // never follows links: a link inside goes, not what it points at
	} else {
		err = os.Remove(target)
		if info.IsDir() && errors.Is(err, syscall.ENOTEMPTY) {
			return &fsError{http.StatusConflict, "directory_not_empty", requested + " is a folder with entries: add ?recursive=true"}
		}
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) postPath(w http.ResponseWriter, r *http.Request, requested string) error {
	line, err := io.ReadAll(io.LimitReader(r.Body, 64*1024))
	if err != nil {
		return err
	}
	var op struct {
		Op string  `json:"op"`
		To *string `json:"to"`
	}
	if json.Unmarshal(line, &op) != nil {
		return &fsError{http.StatusBadRequest, "bad_request", `the body must be {"op":"mkdir"} or {"op":"move","to":"/workspace/…"}`}
	}
	switch op.Op {
	case "mkdir":
		target, err := resolveForWrite(s.workspace, requested)
		if err != nil {
			return err
		}
		if info, err := os.Stat(target); err == nil {
			if !info.IsDir() {
				return &fsError{http.StatusConflict, "already_exists", requested + " exists and is not a folder"}
			}
			writeJSON(w, http.StatusOK, map[string]string{"path": filepath.Clean(requested)})
			return nil
		}
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, map[string]string{"path": filepath.Clean(requested)})
		return nil
	case "move":
		if op.To == nil {
			return &fsError{http.StatusBadRequest, "bad_request", "to is required for a move"}
		}
		from, _, err := resolveEntry(s.workspace, requested)
		if err != nil {
			return err
		}
		to, err := checkRequested(s.workspace, *op.To, false)
		if err != nil {
			return err
		}
		if _, err := resolveInside(s.workspace, to); err != nil {
			return asFsError(err)
		}
		if _, err := os.Lstat(to); err == nil {
			return &fsError{http.StatusConflict, "already_exists", *op.To + " already exists"}
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.Rename(from, to); err != nil {
			if errors.Is(err, syscall.EINVAL) {
				return &fsError{http.StatusBadRequest, "bad_request", "a folder cannot move inside itself"}
			}
			return err
		}
		writeJSON(w, http.StatusOK, map[string]string{"path": filepath.Clean(*op.To)})
		return nil
	default:
		return &fsError{http.StatusBadRequest, "bad_request", `op must be "mkdir" or "move"`}
	}
}
