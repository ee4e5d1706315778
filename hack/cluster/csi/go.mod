// Module csi: svc-csi, the real cluster's CSI driver (hack/cluster, issue 37), its own module so
// that changing it rebuilds only it. Nothing here is imported by the product.
module svc.io/hack/cluster/csi

go 1.25.0

require (
	github.com/container-storage-interface/spec v1.13.0
	github.com/moby/sys/mountinfo v0.7.3
	golang.org/x/sys v0.47.0
	google.golang.org/grpc v1.84.0
	google.golang.org/protobuf v1.36.11
	k8s.io/kubelet v0.35.4
)

require (
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/text v0.40.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260706201446-f0a921348800 // indirect
)
