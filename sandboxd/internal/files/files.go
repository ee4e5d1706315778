// Package files is the workspace's file API: atomic batches (PUT /files) and single paths
// (/fs: list, read, write, delete, mkdir, move). Every path is confined to the workspace by
// package confine, which the archive API (package archive) shares: the same checks, writes
// and refusals.
package files

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/confine"
	"github.com/svc-dev/svc/sandboxd/internal/identity"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// Server serves the file API on one workspace.
type Server struct {
	Workspace string
	Owner     *identity.Owner // who owns what is written; nil: sandboxd's own user
}

// The spec's configure limits (core/governance/limits.ts has the same figures).
const (
	maxFileBytes     = 32 * 1024 * 1024
	maxRequestBytes  = 128 * 1024 * 1024
	maxFiles         = 200
	maxManifestBytes = 1024 * 1024
	maxManifestFiles = 10_000
)

// filesRefused is a batch refused before anything was written (limits, a bad manifest, a
// body of the wrong length); codes are the spec's violation codes, when there are any.
type filesRefused struct {
	message string
	codes   []string
}

func (e *filesRefused) Error() string { return e.message }

type manifestFile struct {
	Path string   `json:"path"`
	Size *float64 `json:"size"`
	Mode *float64 `json:"mode"`
}

type fileEntry struct {
	path string
	size int64
	mode os.FileMode
	// hasMode: the manifest named a mode, which then wins over the umask.
	hasMode bool
}

// parseManifest checks the manifest line the way core's FileManifest schema does.
func parseManifest(line []byte) ([]fileEntry, error) {
	var m struct {
		Files *[]manifestFile `json:"files"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, &filesRefused{message: "bad manifest: not JSON of the expected shape", codes: []string{}}
	}
	if m.Files == nil {
		return nil, &filesRefused{message: "bad manifest: files is required", codes: []string{}}
	}
	if len(*m.Files) > maxManifestFiles {
		return nil, &filesRefused{message: fmt.Sprintf("bad manifest: at most %d files", maxManifestFiles), codes: []string{}}
	}
	out := make([]fileEntry, 0, len(*m.Files))
	for i, f := range *m.Files {
		bad := func(why string) error {
			return &filesRefused{message: fmt.Sprintf("bad manifest: files[%d]: %s", i, why), codes: []string{}}
		}
		if len(f.Path) < 1 || len(f.Path) > 4096 {
			return nil, bad("path must be 1 to 4096 characters")
		}
		if f.Size == nil || *f.Size < 0 || *f.Size != float64(int64(*f.Size)) {
			return nil, bad("size must be an integer ≥ 0")
		}
		e := fileEntry{path: f.Path, size: int64(*f.Size), mode: 0o644}
		if f.Mode != nil {
			if *f.Mode < 0 || *f.Mode > 0o7777 || *f.Mode != float64(int64(*f.Mode)) {
				return nil, bad("mode must be an integer from 0 to 0o7777")
			}
			e.mode, e.hasMode = confine.UnixMode(int64(*f.Mode)), true
		}
		out = append(out, e)
	}
	return out, nil
}

// checkConfigureLimits returns the spec's violations (codes and messages), in its order.
func checkConfigureLimits(files []fileEntry) (codes, messages []string) {
	if len(files) > maxFiles {
		codes = append(codes, "configure_too_many_files")
		messages = append(messages, fmt.Sprintf("%d files; at most %d per request", len(files), maxFiles))
	}
	var total int64
	for _, f := range files {
		total += f.size
		if f.size > maxFileBytes {
			codes = append(codes, "configure_file_too_large")
			messages = append(messages, fmt.Sprintf("%s is %d bytes; at most %d (32 MiB) per file", f.path, f.size, maxFileBytes))
		}
	}
	if total > maxRequestBytes {
		codes = append(codes, "configure_request_too_large")
		messages = append(messages, fmt.Sprintf("%d bytes in all; at most %d (128 MiB) per request", total, maxRequestBytes))
	}
	return codes, messages
}

// writeFiles writes a batch of files atomically from a body framed as one JSON manifest line
// followed by the files' bytes back to back. Everything is checked (limits, every path)
// before a byte is written; each file goes to a temporary sibling and all are renamed into
// place only when all arrived, so a failure leaves nothing behind. Bytes stream to disk.
func writeFiles(root string, own *identity.Owner, body io.Reader) (int, error) {
	r := bufio.NewReaderSize(body, 64*1024)
	line, err := wire.ReadLine(r, maxManifestBytes)
	if err != nil {
		if errors.Is(err, wire.ErrLineTooLong) {
			return 0, &filesRefused{message: "the manifest line is too long", codes: []string{}}
		}
		return 0, &filesRefused{message: "the body ended before the manifest line", codes: []string{}}
	}
	files, err := parseManifest(line)
	if err != nil {
		return 0, err
	}
	if codes, messages := checkConfigureLimits(files); len(codes) > 0 {
		return 0, &filesRefused{message: strings.Join(messages, "; "), codes: codes}
	}
	b, err := confine.Open(root)
	if err != nil {
		return 0, err
	}
	defer b.Close()
	b.Owner = own
	targets := make([]string, len(files))
	for i, f := range files {
		if targets[i], err = confine.ResolveInside(b, f.path); err != nil {
			return 0, err
		}
	}
	// Each file's folder is opened beneath the root once and kept until its rename, so the
	// temporary file and the file are both named relative to that fd.
	type pending struct {
		dir        int
		temp, name string
	}
	var temps []pending
	fail := func(err error) (int, error) {
		for _, t := range temps {
			_ = unix.Unlinkat(t.dir, t.temp, 0)
			unix.Close(t.dir)
		}
		return 0, err
	}
	for i, f := range files {
		dir, name, err := b.ParentOf(f.path, targets[i], true)
		if err != nil {
			return fail(err)
		}
		temp := ".svc-tmp-" + confine.RandomHex(6)
		fd, err := b.OpenAt(dir, temp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, confine.UnixPerm(confine.SafeMode(f.mode)))
		if err != nil {
			unix.Close(dir)
			return fail(&os.PathError{Op: "create", Path: f.path, Err: err})
		}
		temps = append(temps, pending{dir, temp, name})
		out := os.NewFile(uintptr(fd), f.path)
		n, err := io.CopyN(out, r, f.size)
		if err == nil && f.hasMode {
			err = out.Chmod(confine.SafeMode(f.mode))
		}
		if err == nil {
			err = b.Owner.Claim(fd)
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if n < f.size {
			return fail(&filesRefused{message: "the body ended inside " + f.path, codes: []string{}})
		}
		if err != nil {
			return fail(err)
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return fail(&filesRefused{message: "the body is longer than the manifest says", codes: []string{}})
	}
	for _, t := range temps {
		if err := unix.Renameat(t.dir, t.temp, t.dir, t.name); err != nil {
			return fail(&os.PathError{Op: "rename", Path: t.name, Err: err})
		}
	}
	for _, t := range temps {
		unix.Close(t.dir)
	}
	return len(targets), nil
}

func (s *Server) PutFiles(w http.ResponseWriter, r *http.Request) {
	written, err := writeFiles(s.Workspace, s.Owner, r.Body)
	// Read what is left, so the client's request completes and it sees the answer.
	_, _ = io.Copy(io.Discard, r.Body)
	var refused *filesRefused
	var path *confine.PathRefused
	switch {
	case err == nil:
		wire.WriteJSON(w, http.StatusOK, map[string]int{"written": written})
	case errors.As(err, &refused):
		wire.WriteJSON(w, http.StatusRequestEntityTooLarge, struct {
			Error   string   `json:"error"`
			Message string   `json:"message"`
			Codes   []string `json:"codes"`
		}{"files_refused", refused.message, refused.codes})
	case errors.As(err, &path):
		wire.WriteJSON(w, http.StatusBadRequest, wire.Error("path_refused", path.Error()))
	default:
		wire.WriteJSON(w, http.StatusInternalServerError, wire.Error("internal", err.Error()))
	}
}
