package confine

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// The refusals of the file and archive APIs: what a confined path, a missing one or a full
// volume answers, the same on /fs, /files and /archive.

// Refusal is a refusal with its HTTP status and error code.
type Refusal struct {
	Status int
	Code   string
	Msg    string
}

func (e *Refusal) Error() string { return e.Msg }

// Refuse is a refusal answered with status and the error code code.
func Refuse(status int, code, msg string) error { return &Refusal{status, code, msg} }

func outside(path, why string) error {
	return &Refusal{http.StatusBadRequest, "path_outside_workspace", path + ": " + why}
}

// CheckRequested refuses what is not an absolute, `..`-free path inside root (root itself
// only when allowRoot), before the filesystem is asked anything.
func CheckRequested(root, requested string, allowRoot bool) (string, error) {
	if requested == "" {
		return "", &Refusal{http.StatusBadRequest, "bad_request", "path is required"}
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
	if !(Inside(root, target) || (allowRoot && target == root)) {
		return "", outside(requested, "must be inside "+root)
	}
	return target, nil
}

// OpenExisting opens the workspace root and resolves requested in it as ResolveExisting
// does; the caller closes the root when there is no error.
func OpenExisting(workspace, requested string, allowRoot bool) (*Root, string, error) {
	b, err := Open(workspace)
	if err != nil {
		return nil, "", err
	}
	rel, err := ResolveExisting(b, requested, allowRoot)
	if err != nil {
		b.Close()
		return nil, "", err
	}
	return b, rel, nil
}

// resolveRequested checks requested and follows its links beneath the root (its last entry's
// too when followLast); a link that leads out is the caller's refusal.
func resolveRequested(b *Root, requested string, allowRoot, followLast bool) (Resolved, error) {
	target, err := CheckRequested(b.root, requested, allowRoot)
	if err != nil {
		return Resolved{}, err
	}
	r, err := b.Resolve(requested, b.RelOf(target), followLast)
	if err != nil {
		return Resolved{}, AsRefusal(err)
	}
	return r, nil
}

// ResolveExisting is where an existing path really is, relative to the root, links followed
// beneath it: refused when a link leads outside, 404 when nothing is there.
func ResolveExisting(b *Root, requested string, allowRoot bool) (string, error) {
	r, err := resolveRequested(b, requested, allowRoot, true)
	if err != nil {
		return "", err
	}
	if !r.Exists {
		return "", &Refusal{http.StatusNotFound, "not_found", requested + " does not exist"}
	}
	if r.Rel == "." && !allowRoot {
		return "", outside(requested, "resolves to "+b.root+" itself")
	}
	return r.Rel, nil
}

// ResolveForWrite is where requested may be created or replaced, relative to the root: the
// path itself when it is not a link, or the link's destination when that is inside root.
func ResolveForWrite(b *Root, requested string) (string, error) {
	r, err := resolveRequested(b, requested, false, false)
	if err != nil {
		return "", err
	}
	if info, err := b.Lstat(requested, r.Rel); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return ResolveExisting(b, requested, false)
	}
	return r.Rel, nil
}

// AsRefusal is err, a *PathRefused made the refusal a caller is answered with.
func AsRefusal(err error) error {
	var refused *PathRefused
	if errors.As(err, &refused) {
		return outside(refused.path, refused.why)
	}
	return err
}

// WriteError answers r with err: a refusal with its own status and code, the errors of the
// filesystem a caller can act on with theirs, anything else a 500. Whatever the caller still
// sends is read first, so it sees the answer.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	_, _ = io.Copy(io.Discard, r.Body)
	var fe *Refusal
	var refused *PathRefused
	switch {
	case errors.As(err, &fe):
		wire.WriteJSON(w, fe.Status, wire.Error(fe.Code, fe.Msg))
	case errors.As(err, &refused):
		wire.WriteJSON(w, http.StatusBadRequest, wire.Error("path_outside_workspace", refused.Error()))
	case errors.Is(err, fs.ErrNotExist):
		// Gone between the lookup and the open (another process deleted it).
		wire.WriteJSON(w, http.StatusNotFound, wire.Error("not_found", err.Error()))
	case IsNoSpace(err):
		wire.WriteJSON(w, http.StatusInsufficientStorage, wire.Error("insufficient_storage", "the workspace volume is full: "+err.Error()))
	case errors.Is(err, fs.ErrPermission):
		wire.WriteJSON(w, http.StatusForbidden, wire.Error("permission_denied", err.Error()))
	case errors.Is(err, syscall.ENOTDIR):
		wire.WriteJSON(w, http.StatusConflict, wire.Error("not_a_directory", err.Error()))
	default:
		wire.WriteJSON(w, http.StatusInternalServerError, wire.Error("internal", err.Error()))
	}
}

// IsNoSpace reports whether err is the workspace volume (or the user's quota) full.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// PathRefused is a request path that may not be written: outside the workspace, relative,
// or through a link out.
type PathRefused struct{ path, why string }

func (e *PathRefused) Error() string { return e.path + ": " + e.why }

// Inside reports whether target lies strictly below root (both clean and absolute).
func Inside(root, target string) bool {
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// ResolveInside returns where requested may be written, relative to the workspace root, or a
// *PathRefused. The path must be absolute and lexically inside the root (`..` cannot climb
// out), and the links on the way to its folder must stay inside once followed (beneath.go
// reads them beneath the root). The path returned keeps those links: the open that writes
// it is the one the kernel confines.
func ResolveInside(b *Root, requested string) (string, error) {
	if !filepath.IsAbs(requested) {
		return "", &PathRefused{requested, "must be an absolute path"}
	}
	if strings.ContainsRune(requested, 0) {
		return "", &PathRefused{requested, "must not contain NUL"}
	}
	target := filepath.Clean(requested)
	if !Inside(b.root, target) {
		return "", &PathRefused{requested, "must be inside " + b.root}
	}
	rel := b.RelOf(target)
	if _, err := b.Resolve(requested, rel, false); err != nil {
		return "", err
	}
	return rel, nil
}
