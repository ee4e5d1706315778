// Package kube exists only to pin, in go.sum, the modules whose CRD manifests the
// control-plane harness installs (VolumeSnapshot and friends from external-snapshotter).
package kube

import (
	_ "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
)
