// svc-csi: the real cluster's CSI driver (hack/cluster, issue 37), one process per node. A
// volume is a folder of the node's, a snapshot a copy in a folder every node shares, a volume
// from a snapshot a copy back; Pods get a volume as a bind mount. It also registers itself with
// kubelet (kubelet's plugin-registration API on its plugins_registry folder), the job
// node-driver-registrar does beside other drivers. Driven by the real csi-provisioner and
// csi-snapshotter (--node-deployment) and the real snapshot-controller.
//
//	svc-csi --node n1 --endpoint DIR/csi.sock --volumes DIR/volumes --snapshots SHARED/snapshots \
//	        --registry KUBELET_ROOT/plugins_registry
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

const version = "0.1.0"

func main() {
	var (
		name      = flag.String("name", "local.csi.svc.io", "the CSI driver's name")
		key       = flag.String("topology-key", "svc.io/node", "the node label a volume's topology names")
		node      = flag.String("node", "", "this node's name (required)")
		endpoint  = flag.String("endpoint", "", "the CSI socket to serve (required)")
		volumes   = flag.String("volumes", "", "this node's volumes folder (required)")
		snapshots = flag.String("snapshots", "", "the snapshots folder all nodes share (required)")
		registry  = flag.String("registry", "", "kubelet's plugins_registry folder; empty: do not register")
	)
	flag.Parse()
	if *node == "" || *endpoint == "" || *volumes == "" || *snapshots == "" {
		fmt.Fprintln(os.Stderr, "svc-csi: --node, --endpoint, --volumes and --snapshots are required")
		flag.Usage()
		os.Exit(2)
	}
	log.SetPrefix("svc-csi " + *node + ": ")
	d := &driver{name: *name, topologyKey: *key, store: &store{node: *node, volumes: *volumes, snapshots: *snapshots}}

	csiServer := grpc.NewServer(grpc.UnaryInterceptor(logCalls))
	csi.RegisterIdentityServer(csiServer, d)
	csi.RegisterControllerServer(csiServer, d)
	csi.RegisterNodeServer(csiServer, d)
	csi.RegisterGroupControllerServer(csiServer, d)
	lis, err := listen(*endpoint)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(csiServer.Serve(lis)) }()
	log.Printf("serving CSI %s %s on %s", *name, version, *endpoint)

	var regServer *grpc.Server
	if *registry != "" {
		// kubelet watches its plugins_registry folder for sockets, asks each GetInfo, then dials
		// the CSI endpoint named there for NodeGetInfo.
		sock := filepath.Join(*registry, *name+"-reg.sock")
		regServer = grpc.NewServer()
		registerapi.RegisterRegistrationServer(regServer, &registration{name: *name, endpoint: *endpoint})
		rl, err := listen(sock)
		if err != nil {
			log.Fatal(err)
		}
		go func() { log.Fatal(regServer.Serve(rl)) }()
		log.Printf("registering with kubelet through %s", sock)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	if regServer != nil {
		regServer.Stop() // removes the socket: kubelet unregisters the driver
	}
	csiServer.GracefulStop()
}

// listen serves a unix socket, replacing a stale one a previous process left.
func listen(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return net.Listen("unix", path)
}

// logCalls logs every CSI call that changes something or fails: the sidecars retry, so the log
// is where a stuck PVC or snapshot is explained.
func logCalls(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	resp, err := next(ctx, req)
	switch {
	case err != nil:
		log.Printf("%s: %s: %v", info.FullMethod, status.Code(err), status.Convert(err).Message())
	case !quiet[info.FullMethod]:
		log.Printf("%s: ok %v", info.FullMethod, req)
	}
	return resp, err
}

// The probes and capability queries the sidecars and kubelet repeat.
var quiet = map[string]bool{
	"/csi.v1.Identity/Probe":                                 true,
	"/csi.v1.Identity/GetPluginInfo":                         true,
	"/csi.v1.Identity/GetPluginCapabilities":                 true,
	"/csi.v1.Controller/ControllerGetCapabilities":           true,
	"/csi.v1.Node/NodeGetCapabilities":                       true,
	"/csi.v1.GroupController/GroupControllerGetCapabilities": true,
}

// registration answers kubelet's plugin watcher.
type registration struct {
	registerapi.UnimplementedRegistrationServer
	name, endpoint string
}

func (r *registration) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{
		Type:              registerapi.CSIPlugin,
		Name:              r.name,
		Endpoint:          r.endpoint,
		SupportedVersions: []string{"1.0.0"},
	}, nil
}

func (r *registration) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	if s.GetPluginRegistered() {
		log.Printf("kubelet registered the driver")
	} else {
		log.Printf("kubelet did not register the driver: %s", s.GetError())
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}
