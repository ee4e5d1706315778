package main

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The Node service: a volume is its folder bound onto the path kubelet names. The driver runs
// in the node's mount namespace (kubelet's and containerd's), so the bind is the one runc
// binds into the container. No staging: a folder needs no per-node setup.

func (d *driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{}, nil
}

func (d *driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	// kubelet labels the Node with the topology and records the node ID in its CSINode.
	return &csi.NodeGetInfoResponse{NodeId: d.store.node, AccessibleTopology: d.topology()}, nil
}

func (d *driver) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	target := req.GetTargetPath()
	if req.GetVolumeId() == "" || target == "" || req.GetVolumeCapability() == nil {
		return nil, status.Error(codes.InvalidArgument, "volume_id, target_path and volume_capability are required")
	}
	if err := checkCapabilities([]*csi.VolumeCapability{req.GetVolumeCapability()}); err != nil {
		return nil, err
	}
	src, err := d.store.volumePath(req.GetVolumeId())
	if err != nil {
		return nil, err
	}
	// kubelet makes the target's parent; the mount point is the driver's to make.
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
	if req.GetReadonly() {
		// A bind takes its flags from the first mount; read-only needs a remount of the bind.
		if err := unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			_ = unix.Unmount(target, 0)
			return nil, status.Errorf(codes.Internal, "read-only remount of %s: %v", target, err)
		}
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

func (d *driver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	target := req.GetTargetPath()
	if req.GetVolumeId() == "" || target == "" {
		return nil, status.Error(codes.InvalidArgument, "volume_id and target_path are required")
	}
	mounted, err := mountinfo.Mounted(target)
	if errors.Is(err, fs.ErrNotExist) {
		return &csi.NodeUnpublishVolumeResponse{}, nil // unpublished before
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
