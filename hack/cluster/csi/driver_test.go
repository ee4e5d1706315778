package main

import (
	"context"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func mountCap(mode csi.VolumeCapability_AccessMode_Mode) *csi.VolumeCapability {
	return &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
	}
}

func TestCheckCapabilities(t *testing.T) {
	wantCode(t, checkCapabilities(nil), codes.InvalidArgument)
	wantCode(t, checkCapabilities([]*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)}), codes.OK)
	wantCode(t, checkCapabilities([]*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER)}), codes.InvalidArgument)
	block := &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
	}
	wantCode(t, checkCapabilities([]*csi.VolumeCapability{block}), codes.InvalidArgument)
}

func TestCreateVolumeTopology(t *testing.T) {
	d := &driver{name: "local.csi.svc.io", topologyKey: "svc.io/node", store: newStore(t, "n1", t.TempDir())}
	req := func(node string) *csi.CreateVolumeRequest {
		return &csi.CreateVolumeRequest{
			Name:               "pvc-" + node,
			CapacityRange:      &csi.CapacityRange{RequiredBytes: 1 << 30},
			VolumeCapabilities: []*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)},
			AccessibilityRequirements: &csi.TopologyRequirement{
				Requisite: []*csi.Topology{{Segments: map[string]string{"svc.io/node": node}}},
				Preferred: []*csi.Topology{{Segments: map[string]string{"svc.io/node": node}}},
			},
		}
	}
	resp, err := d.CreateVolume(context.Background(), req("n1"))
	if err != nil {
		t.Fatal(err)
	}
	v := resp.GetVolume()
	if v.GetVolumeId() != "n1/pvc-n1" || v.GetCapacityBytes() != 1<<30 ||
		v.GetAccessibleTopology()[0].GetSegments()["svc.io/node"] != "n1" {
		t.Fatalf("volume = %v", v)
	}
	_, err = d.CreateVolume(context.Background(), req("n2"))
	wantCode(t, err, codes.ResourceExhausted)

	clone := req("n1")
	clone.Name = "pvc-clone"
	clone.VolumeContentSource = &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Volume{
		Volume: &csi.VolumeContentSource_VolumeSource{VolumeId: "n1/pvc-n1"},
	}}
	_, err = d.CreateVolume(context.Background(), clone)
	wantCode(t, err, codes.InvalidArgument)
}

func TestNodeGetInfo(t *testing.T) {
	d := &driver{topologyKey: "svc.io/node", store: &store{node: "n2"}}
	info, err := d.NodeGetInfo(context.Background(), &csi.NodeGetInfoRequest{})
	if err != nil || info.GetNodeId() != "n2" || info.GetAccessibleTopology().GetSegments()["svc.io/node"] != "n2" {
		t.Fatalf("NodeGetInfo = %v %v", info, err)
	}
}
