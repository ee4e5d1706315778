package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestInstallCopiesIntoTheDigestsFolder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sandboxd")
	writeFile(t, src, "binary v1")
	store := filepath.Join(dir, "store")
	digest, err := install(src, store)
	if err != nil {
		t.Fatal(err)
	}
	// sha256("binary v1")
	want, _ := fileDigest(src)
	if digest != want || !validDigest(digest) {
		t.Fatalf("digest %q, want %q", digest, want)
	}
	dst := filepath.Join(store, digest, "sandboxd")
	body, err := os.ReadFile(dst)
	if err != nil || string(body) != "binary v1" {
		t.Fatalf("copy: %q %v", body, err)
	}
	st, _ := os.Stat(dst)
	if st.Mode().Perm() != 0o555 {
		t.Fatalf("mode %v, want 0555", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Join(store, digest))
	if len(entries) != 1 {
		t.Fatalf("the folder holds %d files, want sandboxd alone (no temporary left)", len(entries))
	}
}

func TestInstallKeepsOtherDigestsAndIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sandboxd")
	store := filepath.Join(dir, "store")
	writeFile(t, src, "binary v1")
	old, err := install(src, store)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := install(src, store); err != nil || again != old {
		t.Fatalf("second install: %q %v", again, err)
	}
	writeFile(t, src, "binary v2") // an upgrade: a new image's sandboxd
	neu, err := install(src, store)
	if err != nil || neu == old {
		t.Fatalf("upgrade: %q %v", neu, err)
	}
	// Running Pods keep the old digest's folder.
	for d, body := range map[string]string{old: "binary v1", neu: "binary v2"} {
		got, err := os.ReadFile(filepath.Join(store, d, "sandboxd"))
		if err != nil || string(got) != body {
			t.Fatalf("%s: %q %v", d, got, err)
		}
	}
}

func TestInstallReplacesACorruptCopy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sandboxd")
	store := filepath.Join(dir, "store")
	writeFile(t, src, "binary v1")
	digest, _ := fileDigest(src)
	if err := os.MkdirAll(filepath.Join(store, digest), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(store, digest, "sandboxd"), "half a bin")
	if _, err := install(src, store); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(store, digest, "sandboxd"))
	if string(got) != "binary v1" {
		t.Fatalf("copy %q, want the source's bytes", got)
	}
	st, _ := os.Stat(filepath.Join(store, digest))
	if st.Mode().Perm() != 0o755 {
		t.Fatalf("folder mode %v, want 0755 (the Pod's user enters it)", st.Mode().Perm())
	}
}

func TestInstallWithoutASource(t *testing.T) {
	_, err := install(filepath.Join(t.TempDir(), "missing"), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("err %v, want one naming the missing file", err)
	}
}

func TestValidDigest(t *testing.T) {
	good := strings.Repeat("ab", 32)
	for d, want := range map[string]bool{
		good:                           true,
		strings.ToUpper(good):          false,
		good[:63]:                      false,
		good + "0":                     false,
		"../" + good[3:]:               false,
		"":                             false,
		"sha256:" + good:               false,
		strings.Repeat("0", 62) + "/.": false,
	} {
		if validDigest(d) != want {
			t.Errorf("validDigest(%q) = %v, want %v", d, !want, want)
		}
	}
}
