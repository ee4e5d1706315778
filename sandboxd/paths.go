package main

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// pathRefused is a request path that may not be written: outside the workspace, relative,
// or through a link out.
type pathRefused struct{ path, why string }

func (e *pathRefused) Error() string { return e.path + ": " + e.why }

// inside reports whether target lies strictly below root (both clean and absolute).
func inside(root, target string) bool {
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// resolveInside returns where requested may be written, or a *pathRefused. The path must be
// absolute, lexically inside root (`..` cannot climb out), and its deepest existing ancestor
// must really be inside root once symlinks are followed, so no link can carry a write outside.
func resolveInside(root, requested string) (string, error) {
	if !filepath.IsAbs(requested) {
		return "", &pathRefused{requested, "must be an absolute path"}
	}
	if strings.ContainsRune(requested, 0) {
		return "", &pathRefused{requested, "must not contain NUL"}
	}
	target := filepath.Clean(requested)
	root = filepath.Clean(root)
	if !inside(root, target) {
		return "", &pathRefused{requested, "must be inside " + root}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	for probe := filepath.Dir(target); ; probe = filepath.Dir(probe) {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			if real != realRoot && !inside(realRoot, real) {
				return "", &pathRefused{requested, "resolves outside " + root + " through a symbolic link"}
			}
			return target, nil
		}
		if !errors.Is(err, fs.ErrNotExist) || probe == "/" {
			return "", err
		}
	}
}
