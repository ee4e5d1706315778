package main

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func newStore(t *testing.T, node string, shared string) *store {
	t.Helper()
	dir := t.TempDir()
	return &store{node: node, volumes: filepath.Join(dir, node, "volumes"), snapshots: shared}
}

func wantCode(t *testing.T, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("got %v, want code %v", err, code)
	}
}

func TestParseVolumeID(t *testing.T) {
	for _, id := range []string{"", "n1", "n1/", "/pvc", "n1/../x", "n1/a/b", "../n1/pvc", "n1/.."} {
		if _, _, err := parseVolumeID(id); status.Code(err) != codes.NotFound {
			t.Errorf("parseVolumeID(%q) = %v, want NotFound", id, err)
		}
	}
	node, name, err := parseVolumeID("n1/pvc-0b1c")
	if err != nil || node != "n1" || name != "pvc-0b1c" {
		t.Fatalf("parseVolumeID = %q %q %v", node, name, err)
	}
}

func TestCreateVolumeIsIdempotentAndNodeLocal(t *testing.T) {
	s := newStore(t, "n1", t.TempDir())
	id, err := s.createVolume("pvc-1", "", 0)
	if err != nil || id != "n1/pvc-1" {
		t.Fatalf("createVolume = %q %v", id, err)
	}
	dir, err := s.volumePath(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := s.createVolume("pvc-1", "", 0); err != nil || again != id {
		t.Fatalf("second createVolume = %q %v", again, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "kept" {
		t.Fatalf("a repeated create changed the volume: %q", b)
	}
	_, err = s.volumePath("n2/pvc-1")
	wantCode(t, err, codes.FailedPrecondition)
	_, err = s.volumePath("n1/pvc-2")
	wantCode(t, err, codes.NotFound)
	_, err = s.createVolume("../x", "", 0)
	wantCode(t, err, codes.InvalidArgument)
	leftovers, _ := filepath.Glob(filepath.Join(s.volumes, ".tmp-*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary folders left: %v", leftovers)
	}
}

func TestDeleteVolume(t *testing.T) {
	s := newStore(t, "n1", t.TempDir())
	id, _ := s.createVolume("pvc-1", "", 0)
	if err := s.deleteVolume(id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.volumePath(id); status.Code(err) != codes.NotFound {
		t.Fatalf("volume still there: %v", err)
	}
	if err := s.deleteVolume(id); err != nil {
		t.Fatalf("deleting a deleted volume: %v", err)
	}
	if err := s.deleteVolume("not-ours"); err != nil {
		t.Fatalf("deleting a foreign ID: %v", err)
	}
	wantCode(t, s.deleteVolume("n2/pvc-1"), codes.FailedPrecondition)
}

func TestSnapshotAndRestoreOnAnotherNode(t *testing.T) {
	shared := t.TempDir()
	n1, n2 := newStore(t, "n1", shared), newStore(t, "n2", shared)
	id, _ := n1.createVolume("pvc-1", "", 0)
	dir, _ := n1.volumePath(id)
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "f"), []byte("12345"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/f", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}

	m, err := n1.createSnapshot("snap-1", id)
	if err != nil || m.Source != id || m.SizeBytes != 5 {
		t.Fatalf("createSnapshot = %+v %v", m, err)
	}
	// The snapshot is a copy: changing the volume afterwards does not change it.
	if err := os.WriteFile(filepath.Join(dir, "sub", "f"), []byte("changed"), 0o640); err != nil {
		t.Fatal(err)
	}
	if again, err := n1.createSnapshot("snap-1", id); err != nil || again.Created != m.Created {
		t.Fatalf("repeated createSnapshot = %+v %v", again, err)
	}
	_, err = n1.createSnapshot("snap-1", "n1/pvc-other")
	wantCode(t, err, codes.AlreadyExists)
	_, err = n2.createSnapshot("snap-2", id)
	wantCode(t, err, codes.FailedPrecondition)

	rid, err := n2.createVolume("pvc-2", "snap-1", 0)
	if err != nil || rid != "n2/pvc-2" {
		t.Fatalf("restore = %q %v", rid, err)
	}
	rdir, _ := n2.volumePath(rid)
	if b, err := os.ReadFile(filepath.Join(rdir, "sub", "f")); err != nil || string(b) != "12345" {
		t.Fatalf("restored file = %q %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(rdir, "sub", "f")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("restored mode = %v %v", fi.Mode(), err)
	}
	if l, err := os.Readlink(filepath.Join(rdir, "link")); err != nil || l != "sub/f" {
		t.Fatalf("restored link = %q %v", l, err)
	}
	_, err = n2.createVolume("pvc-3", "snap-none", 0)
	wantCode(t, err, codes.NotFound)

	if err := n1.deleteSnapshot("snap-1"); err != nil {
		t.Fatal(err)
	}
	if err := n2.deleteSnapshot("snap-1"); err != nil {
		t.Fatalf("deleting a deleted snapshot: %v", err)
	}
	_, err = n2.createVolume("pvc-4", "snap-1", 0)
	wantCode(t, err, codes.NotFound)
}

func TestSnapshotSizeIsCappedAtTheVolumeCapacity(t *testing.T) {
	s := newStore(t, "n1", t.TempDir())
	id, _ := s.createVolume("pvc-1", "", 3)
	dir, _ := s.volumePath(id)
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Capacity is not enforced: 5 bytes in a 3-byte volume. A restore the size of the source
	// must still fit, so the snapshot reports at most the capacity.
	m, err := s.createSnapshot("snap-1", id)
	if err != nil || m.SizeBytes != 3 {
		t.Fatalf("createSnapshot = %+v %v, want SizeBytes 3", m, err)
	}
	if err := s.deleteVolume(id); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(s.volumes); len(left) != 0 {
		t.Fatalf("left in the volumes folder: %v", left)
	}
}
