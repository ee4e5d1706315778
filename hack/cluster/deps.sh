#!/usr/bin/env bash
# Installs the Debian packages a node of the real cluster needs (issue 37), with apt-get and only
# when one is missing; says which it installs. The Go binaries come from hack/cluster/build.sh.
#   containerd, runc                 the container runtime (containerd's CRI plugin, runc from Debian)
#   containernetworking-plugins      CNI: bridge, host-local, loopback, portmap
#   iptables, nftables, ipset        kube-proxy (iptables or nftables mode) and kube-router's firewall
#   conntrack                        kube-proxy flushes stale UDP entries with it
#   iproute2                         ip netns, veth, routes
#   umoci, skopeo                    images without a registry: pack a rootfs as OCI, convert layouts
#   mmdebstrap                       the Debian root file systems of the images (hack/cluster/images.sh)
#   busybox-static                   the smallest image there is: one static binary
#   socat                            kubelet's port-forward
#   util-linux                       nsenter, unshare, mount
#   runsc                            gVisor: the RuntimeClass gvisor (isolation.sh)
set -euo pipefail

packages=(containerd runc containernetworking-plugins iptables nftables ipset conntrack iproute2 umoci skopeo mmdebstrap busybox-static socat util-linux runsc)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "hack/cluster: the node's Debian packages are installed" >&2
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "hack/cluster: missing Debian packages: ${missing[*]} (installing them needs root: apt-get install ${missing[*]})" >&2
  exit 1
fi
command -v apt-get >/dev/null || {
  echo "hack/cluster: missing packages ${missing[*]}, and apt-get is not here (a Debian or Ubuntu machine is expected)" >&2
  exit 1
}
echo "hack/cluster: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A package list older than the archive (or none yet) makes apt-get install fail; refresh once.
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; then
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
# Debian's containerd package may start a system containerd (where an init system runs); the
# cluster never uses it: every node runs its own containerd with its own root, state and socket.
for b in containerd runc runsc iptables ipset conntrack umoci mmdebstrap; do
  command -v "$b" >/dev/null || { echo "hack/cluster: $b is still not on PATH after installing" >&2; exit 1; }
done
[ -x /usr/lib/cni/bridge ] || { echo "hack/cluster: /usr/lib/cni/bridge is missing after installing containernetworking-plugins" >&2; exit 1; }
echo "hack/cluster: installed ${missing[*]}" >&2
