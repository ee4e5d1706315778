// sandboxd-csi: the node plugin of `sandboxdDelivery: csi` (docs/operator.md). At start it
// copies its image's sandboxd into the node's folder of that digest
// (STORE/<sha256>/sandboxd, 0555); a sandbox Pod's inline CSI volume
// (csi: {driver: sandboxd.svc.io, readOnly: true, volumeAttributes: {sha256: …}}) is that
// folder bound read-only at the Pod's mount, so the Pod needs no init container. It also
// registers itself with the kubelet (its plugin-registration API on KUBELET/plugins_registry),
// the job node-driver-registrar does beside other drivers.
//
//	sandboxd-csi --node NODE [--kubelet-dir /var/lib/kubelet] [--store /var/lib/svc/sandboxd] \
//	             [--sandboxd /usr/local/bin/sandboxd] [--name sandboxd.svc.io]
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
		name     = flag.String("name", "sandboxd.svc.io", "the CSI driver's name")
		node     = flag.String("node", os.Getenv("NODE_NAME"), "this node's name (default $NODE_NAME)")
		kubelet  = flag.String("kubelet-dir", "/var/lib/kubelet", "the kubelet's root folder (--root-dir)")
		store    = flag.String("store", "/var/lib/svc/sandboxd", "the node's folder of sandboxd copies, one folder per sha256")
		sandboxd = flag.String("sandboxd", "/usr/local/bin/sandboxd", "the sandboxd to install (this image's)")
	)
	flag.Parse()
	if *node == "" {
		fmt.Fprintln(os.Stderr, "sandboxd-csi: --node (or NODE_NAME) is required")
		flag.Usage()
		os.Exit(2)
	}
	log.SetPrefix("sandboxd-csi " + *node + ": ")
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	digest, err := install(*sandboxd, *store)
	if err != nil {
		log.Fatalf("installing sandboxd: %v", err)
	}
	log.Printf("sandboxd sha256:%s in %s", digest, digestDir(*store, digest))
	d := &driver{name: *name, node: *node, store: *store, digest: digest}

	endpoint := filepath.Join(*kubelet, "plugins", *name, "csi.sock")
	csiServer := grpc.NewServer(grpc.UnaryInterceptor(logCalls))
	csi.RegisterIdentityServer(csiServer, d)
	csi.RegisterNodeServer(csiServer, d)
	lis, err := listen(endpoint)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(csiServer.Serve(lis)) }()
	log.Printf("serving CSI %s %s on %s", *name, version, endpoint)

	// The kubelet watches plugins_registry for sockets, asks each GetInfo, then dials the CSI
	// endpoint named there. Registered last, so the kubelet never dials an endpoint not served.
	sock := filepath.Join(*kubelet, "plugins_registry", *name+"-reg.sock")
	regServer := grpc.NewServer()
	registerapi.RegisterRegistrationServer(regServer, &registration{name: *name, endpoint: endpoint})
	rl, err := listen(sock)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(regServer.Serve(rl)) }()
	log.Printf("registering with the kubelet through %s", sock)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	regServer.Stop() // removes the socket: the kubelet unregisters the driver
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

// logCalls logs every publish and unpublish and every failure: the kubelet retries, so the
// log is where a Pod stuck in ContainerCreating is explained.
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

// The probes and capability queries the kubelet repeats.
var quiet = map[string]bool{
	"/csi.v1.Identity/Probe":                 true,
	"/csi.v1.Identity/GetPluginInfo":         true,
	"/csi.v1.Identity/GetPluginCapabilities": true,
	"/csi.v1.Node/NodeGetCapabilities":       true,
	"/csi.v1.Node/NodeGetInfo":               true,
}

// registration answers the kubelet's plugin watcher.
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
		log.Printf("the kubelet registered the driver")
	} else {
		log.Printf("the kubelet did not register the driver: %s", s.GetError())
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}
