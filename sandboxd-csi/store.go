package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// The node's copies of sandboxd, one folder per digest: STORE/<sha256 hex>/sandboxd, 0555.
// A folder is what a Pod's volume binds, so a Pod sees that one file and nothing else of the
// node; keyed by digest, an upgrade adds a folder beside the old one and running Pods keep
// the binary they started with.

// binaryName is the file's name inside a digest's folder: the operator runs
// `<mount path>/sandboxd`.
const binaryName = "sandboxd"

var digestPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// validDigest: a sha256 in lower-case hex, and so a safe folder name (no `/`, no `..`).
func validDigest(d string) bool { return digestPattern.MatchString(d) }

// fileDigest is the sha256 of a file's bytes, in lower-case hex.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// digestDir is the folder a digest's Pods bind.
func digestDir(store, digest string) string { return filepath.Join(store, digest) }

// install copies src into STORE/<its digest>/sandboxd unless a copy is there, and returns the
// digest. The copy is written under a temporary name in the same folder and renamed, so a
// Pod (or a second plugin writing the same digest) never sees a partial file; a file already
// there is checked, not trusted, and replaced when its bytes differ.
func install(src, store string) (string, error) {
	digest, err := fileDigest(src)
	if err != nil {
		return "", fmt.Errorf("sandboxd %s: %w", src, err)
	}
	dir := digestDir(store, digest)
	dst := filepath.Join(dir, binaryName)
	if have, err := fileDigest(dst); err == nil && have == digest {
		return digest, os.Chmod(dst, 0o555)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("existing copy %s: %w", dst, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// MkdirAll keeps an existing folder's mode; the Pod's user must be able to enter it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+binaryName+".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	in, err := os.Open(src)
	if err != nil {
		tmp.Close()
		return "", err
	}
	defer in.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), in); err != nil {
		tmp.Close()
		return "", err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		tmp.Close()
		return "", fmt.Errorf("sandboxd %s changed while copied (sha256 %s, then %s)", src, digest, got)
	}
	if err := tmp.Chmod(0o555); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", err
	}
	return digest, nil
}
