// Module sandboxd-csi: the node plugin of `sandboxdDelivery: csi` (docs/operator.md). One
// process per node (the chart's DaemonSet, in the svc image) serves sandboxd to sandbox Pods
// as a read-only CSI ephemeral inline volume, so the Pods need no init container. Its own
// module: sandboxd stays small and cluster-blind.
module github.com/svc-dev/svc/sandboxd-csi

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
