package main

import (
	"context"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A Pod asking for a sandboxd this node lacks (an operator upgraded before the node's plugin)
// gets NotFound, which the kubelet retries with a backoff, and nothing is made at the target.
func TestPublishOfADigestTheNodeLacksIsNotFound(t *testing.T) {
	d := &driver{name: "sandboxd.svc.io", node: "n1", store: t.TempDir(), digest: strings.Repeat("1", 64)}
	req := inline()
	req.TargetPath = t.TempDir() + "/mount"
	_, err := d.NodePublishVolume(context.Background(), req)
	if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), digest) || !strings.Contains(err.Error(), "n1") {
		t.Fatalf("err %v, want NotFound naming the digest and the node", err)
	}
}

func TestUnpublishOfAGoneTargetIsDone(t *testing.T) {
	d := &driver{store: t.TempDir()}
	req := inline()
	_, err := d.NodeUnpublishVolume(context.Background(), &csi.NodeUnpublishVolumeRequest{VolumeId: req.VolumeId, TargetPath: t.TempDir() + "/gone"})
	if err != nil {
		t.Fatal(err)
	}
}
