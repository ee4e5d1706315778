package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// serve starts a gRPC server on a unix socket in a temporary folder and returns a client
// connection to it, as kubelet and the sidecars dial the driver.
func serve(t *testing.T, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s", "x.sock")
	lis, err := listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	register(srv)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func TestRegistrationTellsKubeletTheEndpoint(t *testing.T) {
	conn := serve(t, func(s *grpc.Server) {
		registerapi.RegisterRegistrationServer(s, &registration{name: "local.csi.svc.io", endpoint: "/run/n1/csi.sock"})
	})
	info, err := registerapi.NewRegistrationClient(conn).GetInfo(context.Background(), &registerapi.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.GetType() != "CSIPlugin" || info.GetName() != "local.csi.svc.io" || info.GetEndpoint() != "/run/n1/csi.sock" ||
		len(info.GetSupportedVersions()) != 1 || info.GetSupportedVersions()[0] != "1.0.0" {
		t.Fatalf("GetInfo = %v", info)
	}
}

func TestIdentityOverTheSocket(t *testing.T) {
	d := &driver{name: "local.csi.svc.io", topologyKey: "svc.io/node", store: &store{node: "n1"}}
	conn := serve(t, func(s *grpc.Server) {
		csi.RegisterIdentityServer(s, d)
		csi.RegisterControllerServer(s, d)
	})
	id := csi.NewIdentityClient(conn)
	info, err := id.GetPluginInfo(context.Background(), &csi.GetPluginInfoRequest{})
	if err != nil || info.GetName() != "local.csi.svc.io" {
		t.Fatalf("GetPluginInfo = %v %v", info, err)
	}
	probe, err := id.Probe(context.Background(), &csi.ProbeRequest{})
	if err != nil || !probe.GetReady().GetValue() {
		t.Fatalf("Probe = %v %v", probe, err)
	}
	caps, err := csi.NewControllerClient(conn).ControllerGetCapabilities(context.Background(), &csi.ControllerGetCapabilitiesRequest{})
	if err != nil || len(caps.GetCapabilities()) != 2 {
		t.Fatalf("ControllerGetCapabilities = %v %v", caps, err)
	}
}
