package main

import (
	"context"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// driver serves the CSI Identity and Controller services of one node (the Node service is in
// node.go). csi-provisioner and csi-snapshotter run beside it on the node with
// --node-deployment, so its Controller only makes volumes of its own node.
type driver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedGroupControllerServer
	csi.UnimplementedControllerServer
	csi.UnimplementedNodeServer
	name        string // the CSI driver's name (CSIDriver, StorageClass provisioner)
	topologyKey string // the node label a volume's topology names, e.g. svc.io/node
	store       *store
}

func (d *driver) topology() *csi.Topology {
	return &csi.Topology{Segments: map[string]string{d.topologyKey: d.store.node}}
}

// --- Identity ---------------------------------------------------------------------------------

func (d *driver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.name, VendorVersion: version}, nil
}

func (d *driver) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	svc := func(t csi.PluginCapability_Service_Type) *csi.PluginCapability {
		return &csi.PluginCapability{Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{Type: t}}}
	}
	return &csi.GetPluginCapabilitiesResponse{Capabilities: []*csi.PluginCapability{
		svc(csi.PluginCapability_Service_CONTROLLER_SERVICE),
		svc(csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS),
	}}, nil
}

func (d *driver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(true)}, nil
}

// GroupControllerGetCapabilities answers csi-snapshotter's question with none: no group
// snapshots (served so that the question is not an error in its log).
func (d *driver) GroupControllerGetCapabilities(context.Context, *csi.GroupControllerGetCapabilitiesRequest) (*csi.GroupControllerGetCapabilitiesResponse, error) {
	return &csi.GroupControllerGetCapabilitiesResponse{}, nil
}

// --- Controller -------------------------------------------------------------------------------

func (d *driver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	rpc := func(t csi.ControllerServiceCapability_RPC_Type) *csi.ControllerServiceCapability {
		return &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{Type: t}}}
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: []*csi.ControllerServiceCapability{
		rpc(csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME),
		rpc(csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT),
	}}, nil
}

// checkCapabilities accepts a folder mounted on one node: a filesystem volume (any fs type
// asked is ignored: it is a bind mount) with a single-node access mode.
func checkCapabilities(caps []*csi.VolumeCapability) error {
	if len(caps) == 0 {
		return status.Error(codes.InvalidArgument, "volume_capabilities missing")
	}
	for _, c := range caps {
		if c.GetMount() == nil {
			return status.Error(codes.InvalidArgument, "only filesystem volumes (access type mount) are served, not block")
		}
		switch c.GetAccessMode().GetMode() {
		case csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER,
			csi.VolumeCapability_AccessMode_SINGLE_NODE_READER_ONLY,
			csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER,
			csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER:
		default:
			return status.Errorf(codes.InvalidArgument, "access mode %v: a local volume is reachable from one node only", c.GetAccessMode().GetMode())
		}
	}
	return nil
}

// checkTopology refuses a volume whose requirements do not allow this node: with
// --node-deployment the provisioner of the node the scheduler chose asks, so this is a guard.
func (d *driver) checkTopology(req *csi.TopologyRequirement) error {
	if req == nil || (len(req.GetRequisite()) == 0 && len(req.GetPreferred()) == 0) {
		return nil
	}
	for _, list := range [][]*csi.Topology{req.GetRequisite(), req.GetPreferred()} {
		for _, t := range list {
			if v, ok := t.GetSegments()[d.topologyKey]; ok && v == d.store.node {
				return nil
			}
		}
	}
	return status.Errorf(codes.ResourceExhausted, "the volume's topology does not allow node %q", d.store.node)
}

func (d *driver) CreateVolume(_ context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name missing")
	}
	if err := checkCapabilities(req.GetVolumeCapabilities()); err != nil {
		return nil, err
	}
	if err := d.checkTopology(req.GetAccessibilityRequirements()); err != nil {
		return nil, err
	}
	from := ""
	if src := req.GetVolumeContentSource(); src != nil {
		if src.GetSnapshot() == nil {
			return nil, status.Error(codes.InvalidArgument, "only a snapshot may be a volume's content source (no volume cloning)")
		}
		from = src.GetSnapshot().GetSnapshotId()
	}
	id, err := d.store.createVolume(req.GetName(), from, req.GetCapacityRange().GetRequiredBytes())
	if err != nil {
		return nil, err
	}
	return &csi.CreateVolumeResponse{Volume: &csi.Volume{
		VolumeId:           id,
		CapacityBytes:      req.GetCapacityRange().GetRequiredBytes(), // recorded, not enforced
		ContentSource:      req.GetVolumeContentSource(),
		AccessibleTopology: []*csi.Topology{d.topology()},
	}}, nil
}

func (d *driver) DeleteVolume(_ context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	if req.GetVolumeId() == "" {
		return nil, status.Error(codes.InvalidArgument, "volume_id missing")
	}
	return &csi.DeleteVolumeResponse{}, d.store.deleteVolume(req.GetVolumeId())
}

func (d *driver) ValidateVolumeCapabilities(_ context.Context, req *csi.ValidateVolumeCapabilitiesRequest) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	if req.GetVolumeId() == "" {
		return nil, status.Error(codes.InvalidArgument, "volume_id missing")
	}
	if _, err := d.store.volumePath(req.GetVolumeId()); err != nil {
		return nil, err
	}
	if err := checkCapabilities(req.GetVolumeCapabilities()); err != nil {
		return &csi.ValidateVolumeCapabilitiesResponse{Message: status.Convert(err).Message()}, nil
	}
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeContext:      req.GetVolumeContext(),
		VolumeCapabilities: req.GetVolumeCapabilities(),
		Parameters:         req.GetParameters(),
	}}, nil
}

func (d *driver) CreateSnapshot(_ context.Context, req *csi.CreateSnapshotRequest) (*csi.CreateSnapshotResponse, error) {
	if req.GetName() == "" || req.GetSourceVolumeId() == "" {
		return nil, status.Error(codes.InvalidArgument, "name and source_volume_id are required")
	}
	m, err := d.store.createSnapshot(req.GetName(), req.GetSourceVolumeId())
	if err != nil {
		return nil, err
	}
	return &csi.CreateSnapshotResponse{Snapshot: &csi.Snapshot{
		SnapshotId:     req.GetName(),
		SourceVolumeId: m.Source,
		SizeBytes:      m.SizeBytes,
		CreationTime:   timestamppb.New(m.Created),
		ReadyToUse:     true, // the copy is complete when CreateSnapshot returns
	}}, nil
}

func (d *driver) DeleteSnapshot(_ context.Context, req *csi.DeleteSnapshotRequest) (*csi.DeleteSnapshotResponse, error) {
	if req.GetSnapshotId() == "" {
		return nil, status.Error(codes.InvalidArgument, "snapshot_id missing")
	}
	return &csi.DeleteSnapshotResponse{}, d.store.deleteSnapshot(req.GetSnapshotId())
}
