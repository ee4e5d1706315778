# syntax=docker/dockerfile:1
# The svc image: one `svc` binary (the operator, the API and the admission webhook are its
# subcommands) and sandboxd, a static Go binary that the operator's init container copies
# into every sandbox Pod from /usr/local/bin/sandboxd (--sandboxd-path), or that
# sandboxd-csi, the chart's node plugin (`operator.sandboxdDelivery: csi`), serves to them.
#
# The build runs the same make targets and scripts as a checkout does, and
# hack/image/check.sh (`make image-check`, part of `make test`) rebuilds the runtime stage's
# file layout without Docker and runs it. Change a COPY below and check.sh follows it.
#
#   docker build -t ghcr.io/svc-dev/svc:0.1.0 .

# sandboxd: static (no cgo), stripped and reproducible, by the same make target as a checkout.
FROM golang:1.26-bookworm AS sandboxd
WORKDIR /src
COPY Makefile ./
COPY sandboxd/ sandboxd/
COPY sandboxd-csi/ sandboxd-csi/
RUN make sandboxd-binary sandboxd-csi-binary

FROM node:24-bookworm AS build
WORKDIR /src
# The dependencies first, so a source change reuses this layer.
COPY package.json package-lock.json .npmrc Makefile ./
RUN make node_modules/.stamp
COPY . .
# /app with production dependencies only.
RUN bash hack/image/app.sh /app

FROM node:24-bookworm-slim
# The chart's appVersion and package.json's version; check.sh compares the three.
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="svc" \
      org.opencontainers.image.description="Kubernetes-native sandbox orchestration: the operator, the admission webhook, the HTTP API and sandboxd" \
      org.opencontainers.image.source="https://github.com/svc-dev/svc" \
      org.opencontainers.image.url="https://github.com/svc-dev/svc" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /app/ /app/
COPY --from=sandboxd /src/dist/sandboxd /usr/local/bin/sandboxd
COPY --from=sandboxd /src/dist/sandboxd-csi /usr/local/bin/sandboxd-csi
# The chart runs every container with a read-only root and an emptyDir at /tmp: anything
# that looks for a home directory finds a writable one there.
ENV HOME=/tmp
WORKDIR /app
# The chart's runAsUser and runAsGroup; numeric, so runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT ["node", "/app/cmd/svc.ts"]
