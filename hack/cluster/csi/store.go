package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// store keeps one node's volumes as folders and the cluster's snapshots as copies of them.
// Volumes are node-local (a volume's ID names its node, and only that node's driver serves
// it); snapshots live in one folder every node's driver shares, the way a cloud's snapshots
// outlive the disk's zone, so a volume restored from a snapshot (an svc clone) may land on any
// node the scheduler picks. Capacity is recorded, not enforced: a folder has no size limit.
type store struct {
	node      string // this node's name, the topology value and the prefix of its volume IDs
	volumes   string // this node's volumes, one folder per volume
	snapshots string // every node's snapshots: SNAPSHOT/data (the copy) and SNAPSHOT/meta.json
}

// snapshotMeta is what a snapshot records beside its copy, to answer a repeated CreateSnapshot.
type snapshotMeta struct {
	Source    string    `json:"source"`
	Created   time.Time `json:"created"`
	SizeBytes int64     `json:"sizeBytes"`
}

// A volume or snapshot name becomes a folder name, so it must not be able to name another path.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

func validName(s string) bool { return namePattern.MatchString(s) && s != "." && s != ".." }

// volumeID is NODE/NAME: the node that holds the folder, and the folder's name.
func volumeID(node, name string) string { return node + "/" + name }

func parseVolumeID(id string) (node, name string, err error) {
	node, name, ok := strings.Cut(id, "/")
	if !ok || !validName(node) || !validName(name) {
		return "", "", status.Errorf(codes.NotFound, "volume %q: not a volume of this driver (want NODE/NAME)", id)
	}
	return node, name, nil
}

// ownVolume returns the folder of a volume of this node.
func (s *store) ownVolume(id string) (string, error) {
	node, name, err := parseVolumeID(id)
	if err != nil {
		return "", err
	}
	if node != s.node {
		return "", status.Errorf(codes.FailedPrecondition, "volume %q lives on node %q, not on %q", id, node, s.node)
	}
	return filepath.Join(s.volumes, name), nil
}

// volumePath returns the folder of an existing volume of this node.
func (s *store) volumePath(id string) (string, error) {
	dir, err := s.ownVolume(id)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", status.Errorf(codes.NotFound, "volume %q does not exist", id)
	} else if err != nil {
		return "", status.Errorf(codes.Internal, "volume %q: %v", id, err)
	}
	return dir, nil
}

// createVolume makes the folder of volume NAME on this node, empty or a copy of a snapshot, and
// records its capacity beside it (NAME.capacity, out of the Pod's sight). Idempotent: a volume
// that exists is returned as it is. A copy is made beside the volume and renamed into place, so
// a volume that exists is always complete.
func (s *store) createVolume(name, fromSnapshot string, capacity int64) (string, error) {
	if !validName(name) {
		return "", status.Errorf(codes.InvalidArgument, "volume name %q: want %s", name, namePattern)
	}
	id := volumeID(s.node, name)
	dir := filepath.Join(s.volumes, name)
	if _, err := os.Stat(dir); err == nil {
		return id, nil
	}
	src := ""
	if fromSnapshot != "" {
		snap, err := s.snapshotDir(fromSnapshot)
		if err != nil {
			return "", err
		}
		src = filepath.Join(snap, "data")
	}
	if err := os.MkdirAll(s.volumes, 0o755); err != nil {
		return "", status.Errorf(codes.Internal, "volumes folder: %v", err)
	}
	if err := os.WriteFile(dir+".capacity", []byte(strconv.FormatInt(capacity, 10)), 0o600); err != nil {
		return "", status.Errorf(codes.Internal, "volume %q: %v", id, err)
	}
	if err := place(dir, src); err != nil {
		return "", status.Errorf(codes.Internal, "volume %q: %v", id, err)
	}
	return id, nil
}

// deleteVolume removes a volume of this node; one that is already gone is fine.
func (s *store) deleteVolume(id string) error {
	dir, err := s.ownVolume(id)
	if status.Code(err) == codes.NotFound {
		return nil // not ours to have ever made: nothing to delete (the spec asks for success)
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return status.Errorf(codes.Internal, "volume %q: %v", id, err)
	}
	if err := os.Remove(dir + ".capacity"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return status.Errorf(codes.Internal, "volume %q: %v", id, err)
	}
	return nil
}

func (s *store) snapshotDir(id string) (string, error) {
	if !validName(id) {
		return "", status.Errorf(codes.NotFound, "snapshot %q: not a snapshot of this driver", id)
	}
	dir := filepath.Join(s.snapshots, id)
	if _, err := os.Stat(filepath.Join(dir, "meta.json")); err != nil {
		return "", status.Errorf(codes.NotFound, "snapshot %q does not exist", id)
	}
	return dir, nil
}

func (s *store) readSnapshot(id string) (snapshotMeta, error) {
	var m snapshotMeta
	dir, err := s.snapshotDir(id)
	if err != nil {
		return m, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return m, status.Errorf(codes.Internal, "snapshot %q: %v", id, err)
	}
	return m, nil
}

// createSnapshot copies a volume of this node into the shared snapshots folder under NAME (the
// snapshot's ID). Idempotent for the same source; the same name of another source is an error.
func (s *store) createSnapshot(name, source string) (snapshotMeta, error) {
	if !validName(name) {
		return snapshotMeta{}, status.Errorf(codes.InvalidArgument, "snapshot name %q: want %s", name, namePattern)
	}
	if m, err := s.readSnapshot(name); err == nil {
		if m.Source != source {
			return m, status.Errorf(codes.AlreadyExists, "snapshot %q exists with source %q, not %q", name, m.Source, source)
		}
		return m, nil
	} else if status.Code(err) != codes.NotFound {
		return m, err
	}
	vol, err := s.volumePath(source)
	if err != nil {
		return snapshotMeta{}, err
	}
	if err := os.MkdirAll(s.snapshots, 0o700); err != nil {
		return snapshotMeta{}, status.Errorf(codes.Internal, "snapshots folder: %v", err)
	}
	tmp, err := os.MkdirTemp(s.snapshots, ".tmp-"+name+"-")
	if err != nil {
		return snapshotMeta{}, status.Errorf(codes.Internal, "snapshot %q: %v", name, err)
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(vol, filepath.Join(tmp, "data")); err != nil {
		return snapshotMeta{}, status.Errorf(codes.Internal, "snapshot %q: %v", name, err)
	}
	size, err := treeSize(filepath.Join(tmp, "data"))
	if err != nil {
		return snapshotMeta{}, status.Errorf(codes.Internal, "snapshot %q: %v", name, err)
	}
	// The size becomes the VolumeSnapshot's restoreSize, the least a restored claim may ask for.
	// Capacity is not enforced, so the data may outgrow the volume; capped at the volume's
	// capacity, a clone the size of its source (what svc asks) still restores.
	if b, err := os.ReadFile(vol + ".capacity"); err == nil {
		if c, err := strconv.ParseInt(string(b), 10, 64); err == nil && c > 0 && size > c {
			size = c
		}
	}
	m := snapshotMeta{Source: source, Created: time.Now().UTC(), SizeBytes: size}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(tmp, "meta.json"), b, 0o600); err != nil {
		return m, status.Errorf(codes.Internal, "snapshot %q: %v", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(s.snapshots, name)); err != nil {
		return m, status.Errorf(codes.Internal, "snapshot %q: %v", name, err)
	}
	return m, nil
}

// deleteSnapshot removes a snapshot; one that is already gone is fine.
func (s *store) deleteSnapshot(id string) error {
	if !validName(id) {
		return nil
	}
	if err := os.RemoveAll(filepath.Join(s.snapshots, id)); err != nil {
		return status.Errorf(codes.Internal, "snapshot %q: %v", id, err)
	}
	return nil
}

// place makes folder DIR, empty or a copy of SRC, through a temporary folder beside it.
func place(dir, src string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-"+filepath.Base(dir)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	target := filepath.Join(tmp, "v")
	if src == "" {
		err = os.Mkdir(target, 0o755)
	} else {
		err = copyTree(src, target)
	}
	if err != nil {
		return err
	}
	return os.Rename(target, dir)
}

// copyTree copies folder SRC to a new folder DST with owners, modes, times, links and extended
// attributes, as `cp -a` keeps them (a workspace restored must be the workspace snapshotted).
func copyTree(src, dst string) error {
	out, err := exec.Command("cp", "-a", "--reflink=auto", src, dst).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", src, dst, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// treeSize is the bytes of the regular files under DIR (a snapshot's reported size).
func treeSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}
