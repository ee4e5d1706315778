package confine

import (
	"path/filepath"
	"strings"
)

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
