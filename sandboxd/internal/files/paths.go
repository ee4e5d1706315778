package files

import (
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

// resolveInside returns where requested may be written, relative to the workspace root, or a
// *pathRefused. The path must be absolute and lexically inside the root (`..` cannot climb
// out), and the links on the way to its folder must stay inside once followed (beneath.go
// reads them beneath the root). The path returned keeps those links: the open that writes
// it is the one the kernel confines.
func resolveInside(b *beneath, requested string) (string, error) {
	if !filepath.IsAbs(requested) {
		return "", &pathRefused{requested, "must be an absolute path"}
	}
	if strings.ContainsRune(requested, 0) {
		return "", &pathRefused{requested, "must not contain NUL"}
	}
	target := filepath.Clean(requested)
	if !inside(b.root, target) {
		return "", &pathRefused{requested, "must be inside " + b.root}
	}
	rel := b.relOf(target)
	if _, err := b.resolve(requested, rel, false); err != nil {
		return "", err
	}
	return rel, nil
}
