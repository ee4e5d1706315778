package main

import (
	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DigestAttribute is the volume attribute naming the sandboxd a Pod asks for (the operator
// writes it: operator/manifests/pod.ts): a sha256 in lower-case hex.
const DigestAttribute = "sha256"

// publishSource checks a NodePublishVolume request and returns the digest it asks for. The
// plugin serves one use only: a read-only filesystem volume inline in a Pod (the CSIDriver
// allows only the Ephemeral lifecycle mode, so the kubelet refuses a PersistentVolume of it;
// a staged volume or a writable one is refused here as well).
func publishSource(req *csi.NodePublishVolumeRequest) (string, error) {
	if req.GetVolumeId() == "" || req.GetTargetPath() == "" || req.GetVolumeCapability() == nil {
		return "", status.Error(codes.InvalidArgument, "volume_id, target_path and volume_capability are required")
	}
	if req.GetStagingTargetPath() != "" {
		return "", status.Error(codes.InvalidArgument, "a staged (persistent) volume is not served: use the driver inline in a Pod (csi: {driver, readOnly: true, volumeAttributes: {sha256}})")
	}
	if req.GetVolumeCapability().GetMount() == nil {
		return "", status.Error(codes.InvalidArgument, "only a filesystem volume (access type mount) is served, not block")
	}
	if !req.GetReadonly() {
		return "", status.Error(codes.InvalidArgument, "the volume is read-only: set readOnly: true on the Pod's csi volume")
	}
	digest := req.GetVolumeContext()[DigestAttribute]
	if !validDigest(digest) {
		return "", status.Errorf(codes.InvalidArgument, "volume attribute %q must be a sha256 in lower-case hex (64 digits), got %q", DigestAttribute, digest)
	}
	return digest, nil
}
