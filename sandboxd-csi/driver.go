package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// driver serves CSI Identity and Node, nothing else: no controller (nothing is provisioned
// or attached), no staging (a folder needs no per-node setup).
type driver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedNodeServer
	name   string // the CSI driver's name (the CSIDriver object, the Pod's csi.driver)
	node   string // this node's name
	store  string // the folder of digest folders (store.go)
	digest string // the sandboxd this process installed at start
}

// --- Identity ---------------------------------------------------------------------------------

func (d *driver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.name, VendorVersion: version}, nil
}

// GetPluginCapabilities: none; without CONTROLLER_SERVICE the kubelet calls no controller.
func (d *driver) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	return &csi.GetPluginCapabilitiesResponse{}, nil
}

func (d *driver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(true)}, nil
}

// --- Node -------------------------------------------------------------------------------------

// NodeGetCapabilities: none (no STAGE_UNSTAGE_VOLUME: the kubelet publishes directly).
func (d *driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{}, nil
}

func (d *driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: d.node}, nil
}

// NodePublishVolume binds the digest's folder read-only at the target. The plugin runs in a
// container whose kubelet folder is the node's, mounted with Bidirectional propagation, so the
// bind made here is the one the kubelet and the runtime see, and runc binds it into the Pod.
func (d *driver) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	digest, err := publishSource(req)
	if err != nil {
		return nil, err
	}
	src := digestDir(d.store, digest)
	if _, err := os.Stat(filepath.Join(src, binaryName)); err != nil {
		// NotFound: the kubelet retries a failed publish with a backoff, so a Pod that an upgraded
		// operator made before this node's plugin was upgraded starts once the new plugin has
		// installed its sandboxd.
		return nil, status.Errorf(codes.NotFound, "sandboxd sha256:%s is not on node %s (its plugin installed sha256:%s): %v", digest, d.node, d.digest, err)
	}
	target := req.GetTargetPath()
	// The kubelet makes the target's parent; the mount point is the driver's to make.
	if err := os.MkdirAll(target, 0o750); err != nil {
		return nil, status.Errorf(codes.Internal, "target %s: %v", target, err)
	}
	mounted, err := mountinfo.Mounted(target)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "target %s: %v", target, err)
	}
	if mounted {
		return &csi.NodePublishVolumeResponse{}, nil // published before: idempotent
	}
	if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
		return nil, status.Errorf(codes.Internal, "bind %s on %s: %v", src, target, err)
	}
	// A bind takes its flags from the mount it comes from; read-only needs a remount of the bind.
	if err := unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		_ = unix.Unmount(target, 0)
		return nil, status.Errorf(codes.Internal, "read-only remount of %s: %v", target, err)
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

// NodeUnpublishVolume unmounts and removes the target; a target already gone is done.
func (d *driver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	target := req.GetTargetPath()
	if req.GetVolumeId() == "" || target == "" {
		return nil, status.Error(codes.InvalidArgument, "volume_id and target_path are required")
	}
	mounted, err := mountinfo.Mounted(target)
	if errors.Is(err, fs.ErrNotExist) {
		return &csi.NodeUnpublishVolumeResponse{}, nil
	}
	if err != nil {
		return nil, status.Errorf(codes.Internal, "target %s: %v", target, err)
	}
	if mounted {
		if err := unix.Unmount(target, 0); err != nil {
			return nil, status.Errorf(codes.Internal, "unmount %s: %v", target, err)
		}
	}
	if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, status.Errorf(codes.Internal, "remove %s: %v", target, err)
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}
