package main

import (
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var digest = strings.Repeat("0f", 32)

// inline is what the kubelet sends for a Pod's inline volume
// csi: {driver: sandboxd.svc.io, readOnly: true, volumeAttributes: {sha256: …}}.
func inline() *csi.NodePublishVolumeRequest {
	return &csi.NodePublishVolumeRequest{
		VolumeId:   "csi-5e1f",
		TargetPath: "/var/lib/kubelet/pods/uid/volumes/kubernetes.io~csi/svc-bin/mount",
		VolumeCapability: &csi.VolumeCapability{
			AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
		},
		Readonly:      true,
		VolumeContext: map[string]string{DigestAttribute: digest},
	}
}

func TestPublishSourceOfAnInlineReadOnlyVolume(t *testing.T) {
	got, err := publishSource(inline())
	if err != nil || got != digest {
		t.Fatalf("publishSource: %q %v", got, err)
	}
}

func TestPublishSourceRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*csi.NodePublishVolumeRequest)
		says   string
	}{
		"writable":   {func(r *csi.NodePublishVolumeRequest) { r.Readonly = false }, "read-only"},
		"staged":     {func(r *csi.NodePublishVolumeRequest) { r.StagingTargetPath = "/staging" }, "staged"},
		"no target":  {func(r *csi.NodePublishVolumeRequest) { r.TargetPath = "" }, "required"},
		"no volume":  {func(r *csi.NodePublishVolumeRequest) { r.VolumeId = "" }, "required"},
		"no digest":  {func(r *csi.NodePublishVolumeRequest) { r.VolumeContext = nil }, "sha256"},
		"bad digest": {func(r *csi.NodePublishVolumeRequest) { r.VolumeContext[DigestAttribute] = "../../etc" }, "sha256"},
		"capability": {func(r *csi.NodePublishVolumeRequest) { r.VolumeCapability = nil }, "required"},
		"block": {func(r *csi.NodePublishVolumeRequest) {
			r.VolumeCapability.AccessType = &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}}
		}, "block"},
		"upper-case":  {func(r *csi.NodePublishVolumeRequest) { r.VolumeContext[DigestAttribute] = strings.ToUpper(digest) }, "lower-case"},
		"with prefix": {func(r *csi.NodePublishVolumeRequest) { r.VolumeContext[DigestAttribute] = "sha256:" + digest }, "64 digits"},
	} {
		t.Run(name, func(t *testing.T) {
			req := inline()
			tc.change(req)
			_, err := publishSource(req)
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err %v, want InvalidArgument saying %q", err, tc.says)
			}
		})
	}
}
