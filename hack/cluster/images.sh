#!/usr/bin/env bash
# Images without a registry (issue 37): builds the images a real cluster of hack/cluster runs
# and imports them into every node's containerd, then checks them in Pods
# (hack/cluster/images-check.sh).
#   localhost/svc/svc:VERSION and :dev   the Dockerfile's runtime stage, read by the parser
#                                        hack/image/check.sh uses (hack/image/dockerfile.sh):
#                                        a node:24-bookworm-slim equivalent (debian:bookworm-slim
#                                        below plus the checkout's Node 24), /app by
#                                        hack/image/app.sh, sandboxd, ENV, WORKDIR, USER,
#                                        ENTRYPOINT and LABELs
#   debian:bookworm, debian:bookworm-slim   the sample templates' images, under the names
#                                        config/samples gives them, built as Docker's are
#                                        (mmdebstrap --variant=minbase; slim without docs, man
#                                        pages and locales)
# Debian packages come from the mirror this machine's apt uses. Each image is packed as an OCI
# layout by umoci and cached under ~/.cache/svc/images/<name>-<key> (SVC_IMAGES_CACHE), the key
# a digest of everything that goes into it, so a second run only imports, and skips a node
# that already has the same image.
#
#   hack/cluster/images.sh [STATE]   default: the run .dev/cluster-state names
#   IMAGES_CHECK=0                   skip the Pod checks
#   SVC_IMAGES_SOURCES=FILE          the apt sources (.list or .sources) for mmdebstrap
set -euo pipefail
shopt -s inherit_errexit # a failing build inside $(…) stops the script
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "hack/cluster: images: $*" >&2; }
die() {
  say "$*"
  exit 1
}
t_all=$(date +%s)
t_phase=$t_all
phase() { # what just finished
  local now
  now=$(date +%s)
  say "$* ($((now - t_phase))s)"
  t_phase=$now
}

state=${1:-$(cat "$repo/.dev/cluster-state" 2>/dev/null || true)}
[ -n "$state" ] || die "no cluster: give its state folder, or bring one up first (make cluster)"
state=${state%/}
if [ ! -f "$state/env" ]; then
  [ -e "$state" ] || die "the cluster at $state is gone (taken down?): bring one up with make cluster"
  die "$state is not a hack/cluster run (no env file)"
fi
# shellcheck disable=SC1091
. "$state/env"

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap builds Debian root file systems as root; containerd's sockets are root's)"
for b in mmdebstrap umoci ctr tar sha256sum flock; do
  command -v "$b" >/dev/null || die "$b is missing: run hack/cluster/deps.sh"
done
node=$(readlink -f "$repo/node_modules/.bin/node" 2>/dev/null || true)
[ -x "$node" ] || die "node_modules/.bin/node is missing: run make node_modules/.stamp (make images does)"
[ -x "$repo/dist/sandboxd" ] || die "dist/sandboxd is missing: run make sandboxd-binary (make images does)"
[ -x "$repo/dist/sandboxd-csi" ] || die "dist/sandboxd-csi is missing: run make sandboxd-csi-binary (make images does)"
for nn in $NODES; do
  [ -S "$state/$nn/containerd.sock" ] || die "node $nn has no containerd socket ($state/$nn/containerd.sock): is the run up?"
done

# The apt sources this machine uses for Debian itself (not third-party repositories): mmdebstrap
# reads them, and they land in the images' /etc/apt as they would on a Debian machine.
sources=()
if [ -n "${SVC_IMAGES_SOURCES:-}" ]; then
  sources=("$SVC_IMAGES_SOURCES")
else
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && grep -Eq '^[^#]*(Suites:.*|deb .*)\bbookworm\b' "$f" && grep -Eq '^[^#]*/debian(-security)?/?([[:space:]]|$)' "$f" &&
      sources+=("$f")
  done
fi
((${#sources[@]})) || die "no Debian bookworm source in /etc/apt/sources.list{,.d}: set SVC_IMAGES_SOURCES to an apt sources file naming a Debian mirror"

# The templates' images by the names the sample templates give them (a node never pulls them).
template_image() { sed -n 's/^  image: *//p' "$repo/config/samples/clustersandboxtemplate-$1.yaml"; }
full_ref=$(template_image default)
slim_ref=$(template_image minimal)
[[ $full_ref == */*debian:bookworm && $slim_ref == */*debian:bookworm-slim ]] ||
  die "the sample templates name '$full_ref' and '$slim_ref'; images.sh makes a full reference to debian:bookworm and debian:bookworm-slim only"

cache=${SVC_IMAGES_CACHE:-$HOME/.cache/svc/images}
mkdir -p "$cache"
digest() { sha256sum | cut -c1-16; }
arch=$(dpkg --print-architecture)
version=$("$node" -p 'require(process.argv[1]).version' "$repo/package.json")

# cached NAME KEY BUILDER ARGS...: the folder of NAME's OCI layout for KEY, built by BUILDER
# into a temporary folder when missing; a lock makes a second run of the same key wait.
cached() {
  local name=$1 key=$2 dir
  shift 2
  dir=$cache/$name-$key
  if [ ! -f "$dir/.done" ]; then
    exec {lock}>"$cache/.lock-$name-$key"
    flock "$lock"
    if [ ! -f "$dir/.done" ]; then
      rm -rf "$dir.tmp"
      mkdir -p "$dir.tmp"
      "$@" "$dir.tmp" >&2
      touch "$dir.tmp/.done"
      rm -rf "$dir"
      mv "$dir.tmp" "$dir"
      # Older builds of this image: the two newest stay (a branch switched to and back).
      local old
      find "$cache" -maxdepth 1 -type d -regextype posix-extended -regex ".*/$name-[0-9a-f]{16}" -printf '%T@ %p\n' |
        sort -rn | cut -d' ' -f2- | grep -vxF "$dir" | tail -n +2 | while read -r old; do rm -rf "$old"; done || true
    fi
    exec {lock}>&-
    rm -f "$cache/.lock-$name-$key"
  fi
  echo "$dir"
}

# --- Debian: the templates' images, and the svc image's base --------------------------------
# debian_build SLIM OUT: a minbase root file system (what Docker's debian images hold), as one
# layer tagged `image`; SLIM=1 with dpkg leaving out docs, man pages and locales (as -slim does),
# a rule that stays in the image for packages installed later.
debian_build() {
  local slim=$1 out=$2 opts=()
  if [ "$slim" = 1 ]; then
    local p
    for p in '/usr/share/doc/*' '/usr/share/man/*' '/usr/share/info/*' '/usr/share/groff/*' \
      '/usr/share/linda/*' '/usr/share/lintian/overrides/*' '/usr/share/locale/*'; do
      opts+=("--dpkgopt=path-exclude=$p")
    done
    # Licences stay, as Debian's policy wants them shipped.
    opts+=('--dpkgopt=path-include=/usr/share/doc/*/copyright')
  fi
  mmdebstrap --quiet --variant=minbase --mode=root --format=tar --skip=output/dev "${opts[@]}" \
    bookworm "$out/rootfs.tar" "${sources[@]}" ||
    die "mmdebstrap could not make bookworm from ${sources[*]} (above): is that mirror reachable from here? SVC_IMAGES_SOURCES names another"
  umoci init --layout "$out/oci"
  umoci new --image "$out/oci:image"
  umoci raw add-layer --image "$out/oci:image" --history.created_by "mmdebstrap --variant=minbase bookworm${opts:+ (slim)}" \
    "$out/rootfs.tar"
  umoci config --image "$out/oci:image" --os linux --architecture "$arch" \
    --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --config.cmd bash
  rm -f "$out/rootfs.tar"
}
debian_key() { # SLIM
  {
    declare -f debian_build
    echo "slim=$1 arch=$arch"
    mmdebstrap --version
    umoci --version
    cat "${sources[@]}"
  } | digest
}
say "Debian from ${sources[*]}; cache $cache"
full=$(cached debian-bookworm "$(debian_key 0)" debian_build 0)
phase "debian:bookworm ready ($(du -sh "$full/oci" | cut -f1) packed)"
slim=$(cached debian-bookworm-slim "$(debian_key 1)" debian_build 1)
phase "debian:bookworm-slim ready ($(du -sh "$slim/oci" | cut -f1) packed)"

# --- svc: the Dockerfile's runtime stage --------------------------------------------------------
df_prog="hack/cluster: images"
# shellcheck source=hack/image/dockerfile.sh
. "$repo/hack/image/dockerfile.sh"
dockerfile_read "$repo" "$version"
[ "$df_version" = "$version" ] || die "the Dockerfile's version $df_version is not package.json's $version"
[[ $df_from == node:24-bookworm-slim ]] ||
  die "the runtime stage is FROM $df_from; images.sh makes node:24-bookworm-slim's equivalent only (teach it the new base)"
mapfile -t entrypoint < <("$node" -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$df_entrypoint")

# layer OCI TAG DIR HISTORY PATH...: PATH… under DIR as one layer, owned by root as COPY makes it.
layer() {
  local oci=$1 tag=$2 dir=$3 history=$4
  shift 4
  tar -C "$dir" --owner=0 --group=0 --numeric-owner -cf "$dir.tar" "$@"
  umoci raw add-layer --image "$oci:$tag" --history.created_by "$history" "$dir.tar"
  rm -f "$dir.tar"
}
# svc_build OUT: the base (debian:bookworm-slim and Node at /usr/local/bin/node, as
# node:24-bookworm-slim has them), then one layer per COPY, then the stage's configuration.
svc_build() {
  local out=$1 oci=$1/oci i=0 c from path to src dest
  cp -a "$slim/oci" "$oci"
  umoci tag --image "$oci:image" "$version"
  mkdir -p "$out/node/usr/local/bin"
  cp "$node" "$out/node/usr/local/bin/node"
  layer "$oci" "$version" "$out/node" "node $("$node" --version) at /usr/local/bin/node (node:24-bookworm-slim)" usr
  npm_config_prefer_offline=true bash "$repo/hack/image/app.sh" "$out/build/app" >/dev/null
  for c in "${df_copies[@]}"; do
    read -r from path to <<<"$c"
    src=$(dockerfile_source "$from" "$path" "$out/build")
    i=$((i + 1))
    dest=$out/copy$i$to
    if [ -d "$src" ]; then
      mkdir -p "$dest"
      cp -a "$src/." "$dest/"
    elif [ -f "$src" ]; then
      [[ $dest == */ ]] && dest=$dest$(basename "$src")
      mkdir -p "$(dirname "$dest")"
      cp -a "$src" "$dest"
    else
      die "COPY source missing: $path ($src)"
    fi
    layer "$oci" "$version" "$out/copy$i" "COPY --from=$from $path $to" "$(cd "$out/copy$i" && ls -A)"
  done
  rm -rf "$out/build" "$out/node" "$out"/copy*
  local args=(--config.workingdir "$df_workdir" --config.user "$df_user" --clear=config.cmd --clear=config.entrypoint)
  for c in "${df_env[@]}" "NODE_VERSION=$("$node" --version | tr -d v)"; do args+=(--config.env "$c"); done
  for c in "${entrypoint[@]}"; do args+=(--config.entrypoint "$c"); done
  for c in "${df_labels[@]}"; do args+=(--config.label "$c"); done
  umoci config --image "$oci:$version" "${args[@]}"
  umoci rm --image "$oci:image"
  umoci tag --image "$oci:$version" dev
  umoci gc --layout "$oci"
}
svc_key() {
  {
    declare -f svc_build layer
    printf '%s\n' "$slim" "${df_runtime[@]}" "$version"
    sha256sum "$node" "$repo/dist/sandboxd" "$repo/dist/sandboxd-csi" "$repo/hack/image/dockerfile.sh"
    (cd "$repo" && bash hack/image/app.sh --inputs | xargs -d '\n' sh -c 'find "$@" -type f' find | sort | xargs -d '\n' sha256sum)
  } | digest
}
svc=$(cached "svc-$version" "$(svc_key)" svc_build)
phase "localhost/svc/svc:$version ready ($(du -sh "$svc/oci" | cut -f1) packed)"

# --- import into every node's containerd, skipping a node that has the same image -------------
manifest() { # OCI TAG -> the manifest's digest
  "$node" -e '
    const index = require(process.argv[1] + "/index.json");
    const m = index.manifests.find((d) => d.annotations?.["org.opencontainers.image.ref.name"] === process.argv[2]);
    console.log(m ? m.digest : "");' "$1" "$2"
}
# import NODE OCI NAME LAYOUT-TAG TAG...: the layout's image tagged LAYOUT-TAG as NAME:TAG for
# each TAG, unless the node has each of them at that digest already.
import() {
  local nn=$1 oci=$2 name=$3 from=$4 sock=$state/$1/containerd.sock want have tag todo=() tmp
  shift 4
  want=$(manifest "$oci" "$from")
  [ -n "$want" ] || die "$oci has no tag $from"
  for tag in "$@"; do
    have=$(ctr --address "$sock" -n k8s.io images ls "name==$name:$tag" | awk 'NR > 1 {print $3}')
    [ "$have" = "$want" ] || todo+=("$tag")
  done
  if ((${#todo[@]} == 0)); then
    say "$nn has $name:$(IFS=,; echo "$*") (${want:7:12})"
    return
  fi
  # ctr names an OCI archive's image by its ref.name under --base-name: an archive holding this
  # one image named by the first tag, then the other tags as more names of the same image.
  tmp=$(mktemp -d)
  cp "$oci/oci-layout" "$tmp/"
  "$node" -e '
    const fs = require("node:fs"), [file, from, to] = process.argv.slice(1);
    const index = JSON.parse(fs.readFileSync(file, "utf8"));
    index.manifests = index.manifests.filter((d) => d.annotations?.["org.opencontainers.image.ref.name"] === from);
    index.manifests[0].annotations["org.opencontainers.image.ref.name"] = to;
    fs.writeFileSync(process.argv[4], JSON.stringify(index));' "$oci/index.json" "$from" "${todo[0]}" "$tmp/index.json"
  tar -cf - -C "$tmp" index.json oci-layout -C "$oci" blobs |
    ctr --address "$sock" -n k8s.io images import --base-name "$name" - >/dev/null
  rm -rf "$tmp"
  for tag in "${todo[@]:1}"; do
    ctr --address "$sock" -n k8s.io images tag --force "$name:${todo[0]}" "$name:$tag" >/dev/null
  done
  say "$nn: imported $name:$(IFS=,; echo "${todo[*]}") (${want:7:12})"
}
# The nodes side by side: unpacking is most of the time, and each node's containerd does its own.
pids=()
for nn in $NODES; do
  (
    import "$nn" "$full/oci" "${full_ref%:*}" image bookworm
    import "$nn" "$slim/oci" "${slim_ref%:*}" image bookworm-slim
    import "$nn" "$svc/oci" localhost/svc/svc "$version" "$version" dev
  ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || die "importing into a node failed (above)"; done
phase "imported into $NODES"

if [ "${IMAGES_CHECK:-1}" != 0 ]; then
  bash "$here/images-check.sh" "$state" "$version" "$full_ref" "$slim_ref"
  phase "checked in Pods"
fi
say "done in $(($(date +%s) - t_all))s"
