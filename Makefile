# The two commands a new user runs: `make dev` and `make test`. Every target installs
# what it needs first, so both work on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE := node_modules/.bin/node
SVC := $(NODE) cmd/svc.ts

.PHONY: help deps system-deps kube generate client-types check-generated sandboxd-types typecheck lint format-check \
	test test-unit test-go test-python python-client test-fuzz test-integration test-e2e dev sandboxd-binary sandboxd-csi-binary image-check helm kustomize \
	bench-sandboxd bench-clone bench-create bench-api bench-invoke bench-exec bench-files bench-terminal bench-claim bench-peer bench-scale bench-tti bench-egress cli-binary bench-cli

help:
	@echo "make dev    run the whole service on this machine (prints the URL and API keys;"
	@echo "            PORT=9090 for another port than 8080)"
	@echo "make test   install what is needed, then typecheck, lint, unit and integration tests"
	@echo "make dev CLUSTER=real   the same on a real cluster of this machine, installed by the chart"
	@echo "make test-e2e           the e2e tier against that (SVC_E2E_STATE=STATE: a running one)"

# npm packages, from the lockfile, with the machine's npm (hack/npm-ci.sh folds the engine
# warnings an older system Node causes into one line). The stamp makes a second run free.
node_modules/.stamp: package.json package-lock.json
	@bash hack/npm-ci.sh
	@touch $@

deps: node_modules/.stamp system-deps

# Debian packages the sandbox runtime uses (bubblewrap for devnode's isolation), lua5.4,
# which runs the Argo CD health checks in config/argocd in their test, busybox-static for
# the tiny non-glibc root that test/sandboxd/any-image.test.ts runs sandboxd in, and chromium,
# the browser test/console drives with playwright-core (no browser is downloaded).
system-deps:
	@command -v bwrap >/dev/null && command -v lua5.4 >/dev/null && [ -x /bin/busybox ] && [ -x /usr/bin/chromium ] || \
		{ apt-get update -qq && apt-get install -y -qq bubblewrap lua5.4 busybox-static chromium >/dev/null; }

# etcd, kube-apiserver and kubectl, built from the Go module proxy (cached by version).
kube:
	@bash hack/kube/build.sh >/dev/null

# A real cluster on this machine (hack/cluster, issue 37, in progress): NODES nodes (default 2),
# each a containerd and kubelet in network namespaces of the run's own; prints the run's state
# folder ($$STATE/kubectl reaches it). `make cluster-down` removes the last one made from here.
# `make images` builds the svc image (the Dockerfile's runtime stage) and the sample templates'
# Debian images without a registry and imports them into that cluster's nodes (cached: a
# second run only imports).
.PHONY: cluster cluster-preflight cluster-down images
# What the machine must allow (root, namespaces, cgroups, …), said before anything is built.
cluster-preflight:
	@bash hack/cluster/preflight.sh
cluster: cluster-preflight kube
	@bash hack/cluster/deps.sh
	@bash hack/cluster/build.sh >/dev/null
	@NODES=$${NODES:-2} bash hack/cluster/up.sh

cluster-down:
	@bash hack/cluster/down.sh

images: node_modules/.stamp sandboxd-binary sandboxd-csi-binary
	@bash hack/cluster/deps.sh
	@bash hack/cluster/images.sh

# helm, built from the Go module proxy like hack/kube (cached by version); the deploy tests
# render the chart with it.
helm:
	@bash hack/helm/build.sh >/dev/null

generate: node_modules/.stamp
	$(SVC) generate

# The kustomize bases in config/, rendered from the Helm chart (their one source).
kustomize: node_modules/.stamp helm
	$(NODE) hack/helm/kustomize.ts

check-generated: node_modules/.stamp
	$(SVC) generate --check
	$(NODE) clients/typescript/codegen/generate.ts --check
	$(NODE) hack/codegen/sandboxd-types.ts --check
	bash clients/python/generate.sh --check

# The Python client's models (from api/openapi.json) and its blocking client (from the async
# one, by unasync): clients/python/codegen/generate.py. Run after `make generate`.
python-client:
	bash clients/python/generate.sh

# sandboxd's HTTP types for kube/sandboxd/client.ts, from sandboxd/openapi.json.
sandboxd-types: node_modules/.stamp
	$(NODE) hack/codegen/sandboxd-types.ts

# The TypeScript client's types, from api/openapi.json (run after `make generate`).
client-types: node_modules/.stamp
	$(NODE) clients/typescript/codegen/generate.ts

typecheck: node_modules/.stamp
	npx tsc --noEmit -p tsconfig.json
	npx tsc --noEmit -p clients/typescript/tsconfig.browser.json
	npx tsc --noEmit -p console/src/tsconfig.json

lint: node_modules/.stamp
	npx eslint --max-warnings=0 .
	# DESIGN.md's import table (doors, direction, no cycles): .dependency-cruiser.js.
	npx depcruise --config .dependency-cruiser.js --output-type err core kube telemetry operator webhook api devnode cmd

format-check: node_modules/.stamp
	npx prettier --check .

test-unit: node_modules/.stamp
	npx vitest run --project unit

# sandboxd, its node plugin sandboxd-csi and hack/cluster's CSI driver (Go): formatted, vetted, unit-tested.
test-go:
	@for d in sandboxd sandboxd-csi hack/cluster/csi; do \
	  out=$$(cd $$d && gofmt -l .); [ -z "$$out" ] || { echo "gofmt -l ($$d): $$out" >&2; exit 1; }; \
	done
	cd sandboxd && go vet ./... && go test ./...
	cd sandboxd-csi && go vet ./... && go test ./...
	cd hack/cluster/csi && go vet ./... && go test ./...

# The run's temporary folders live in a folder of its own (TMPDIR), so the leftover check
# looks only at this run's processes and mounts: another make test beside it is not a leftover.
test-integration: deps kube helm sandboxd-binary console

test-integration: deps kube helm sandboxd-binary cli-binary
	@run=$$(mktemp -d /tmp/sr.XXXXXX); rc=0; \
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) TMPDIR=$$run npx vitest run --project integration || rc=$$?; \
	bash hack/check-no-leftovers.sh "$$run" || rc=1; \
	[ $$rc -ne 0 ] || rm -rf "$$run"; exit $$rc

# The Python client, in its own venv: ruff, mypy --strict, its unit tests, and its
# integration tests against a stack the session starts itself (hack/dev.ts with a temporary
# state folder and a free port, so a running `make dev` is never used nor disturbed).
test-python: deps kube helm
	env -u SVC_BASE_URL -u SVC_ENV_FILE SVC_INTEGRATION=1 SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) \
		bash clients/python/test.sh

# schemathesis against a stack like test-python's: seeded, at least 2,000 requests, 0 failures
# (no 5xx, no undocumented status, bodies as documented). See clients/python/fuzz/fuzz.py.
test-fuzz: deps kube helm
	env -u SVC_BASE_URL -u SVC_ENV_FILE SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) \
		bash clients/python/fuzz/run.sh

# The e2e tier (e2e/, docs/testing.md): svc installed by its chart on a real cluster
# (hack/cluster, root), driven through its public API. SVC_E2E_STATE=STATE uses a running
# cluster (left up); otherwise one is brought up (NODES=2), imaged, installed and removed.
test-e2e: deps kube helm sandboxd-binary sandboxd-csi-binary console
	@bash hack/cluster/deps.sh
	@bash hack/cluster/build.sh >/dev/null
	npx vitest run --project e2e

test: deps kube typecheck lint format-check check-generated test-unit test-go image-check test-python test-fuzz test-integration test-e2e

# The browser console (console/README.md), built into dist/console, which the API serves at
# `/` (make dev passes it; `svc api --console.dir`). Rebuilt only when its sources change.
CONSOLE_SOURCES := $(shell find console clients/typescript -type f -not -name '*.test.ts' 2>/dev/null) package-lock.json
.PHONY: console
console: dist/console/index.html
dist/console/index.html: node_modules/.stamp $(CONSOLE_SOURCES)
	$(NODE) console/build.ts

# sandboxd as one static Go binary, the file sandbox images receive. Reproducible (no cgo,
# no paths, no VCS stamp, no build id: the same source gives the same bytes) and rebuilt
# only when its sources change.
SANDBOXD_SOURCES := $(shell find sandboxd -name '*.go' ! -name '*_test.go') sandboxd/go.mod $(wildcard sandboxd/go.sum)
sandboxd-binary: dist/sandboxd
dist/sandboxd: $(SANDBOXD_SOURCES)
	@mkdir -p dist
	cd sandboxd && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o ../dist/sandboxd .

# sandboxd-csi, the node plugin of `sandboxdDelivery: csi` (sandboxd-csi/main.go), into the
# svc image beside sandboxd; built the same way (static, stripped, reproducible).
SANDBOXD_CSI_SOURCES := $(shell find sandboxd-csi -name '*.go' ! -name '*_test.go') sandboxd-csi/go.mod sandboxd-csi/go.sum
sandboxd-csi-binary: dist/sandboxd-csi
dist/sandboxd-csi: $(SANDBOXD_CSI_SOURCES)
	@mkdir -p dist
	cd sandboxd-csi && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o ../dist/sandboxd-csi .

# sbx, the command line (cli/), as one executable: dist/sbx (cli/build.ts: an esbuild bundle
# made a Node single-executable application). Rebuilt only when its sources change.
CLI_SOURCES := $(shell find cli clients/typescript core mcp -name '*.ts' ! -name '*.test.ts') package.json package-lock.json
cli-binary: dist/sbx
dist/sbx: node_modules/.stamp $(CLI_SOURCES)
	$(NODE) cli/build.ts

# The Dockerfile's runtime stage rebuilt in a temporary folder and run, without Docker.
image-check: node_modules/.stamp sandboxd-binary sandboxd-csi-binary system-deps
	bash hack/image/check.sh

# The whole service on this machine; state in .dev/ (delete it to start afresh). The API
# listens on 127.0.0.1:$(PORT): `make dev PORT=9090` for another port.
PORT ?= 8080
# `make dev CLUSTER=real`: the same service installed by its chart on a real cluster of this
# machine (hack/cluster, root; hack/cluster/dev.sh): the cluster up if none is, the images,
# `helm install`, the same banner; STATE/svc.env instead of .dev/env. It keeps running:
# `make cluster-down` removes it. PORT, when given, is the API's port (else a free one).
ifeq ($(CLUSTER),real)
dev: deps kube helm console sandboxd-binary sandboxd-csi-binary
	@bash hack/cluster/deps.sh
	@bash hack/cluster/build.sh >/dev/null
	@PORT='$(if $(filter command line environment,$(origin PORT)),$(PORT))' bash hack/cluster/dev.sh
else
dev: deps kube helm console
	@SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) hack/dev.ts --port '$(PORT)'
endif

# Benchmarks print figures; they are not tests (see bench/README.md).
bench-api: deps kube
	@command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
	$(NODE) bench/api.ts

bench-create: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/devnode.ts create

# CLUSTER=real: on a real cluster of this machine (bench/real.ts: hack/cluster up, images and
# install, down on every way out; SVC_E2E_STATE=STATE uses a running one and leaves it up).
ifeq ($(CLUSTER),real)
bench-scale: deps kube helm sandboxd-binary sandboxd-csi-binary console
	@bash hack/cluster/deps.sh
	@bash hack/cluster/build.sh >/dev/null
	$(NODE) bench/scale-real.ts
else
bench-scale: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/scale.ts
endif

bench-clone: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/devnode.ts clone

bench-invoke: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/invoke.ts

bench-exec: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/exec.ts

ifeq ($(CLUSTER),real)
bench-files: deps kube helm sandboxd-binary sandboxd-csi-binary console
	@bash hack/cluster/deps.sh
	@bash hack/cluster/build.sh >/dev/null
	CLUSTER=real $(NODE) bench/files.ts
else
bench-files: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/files.ts
endif

bench-terminal: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/terminal.ts

bench-claim: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/claim.ts

# Not part of make test: builds the peer (hack/peer) from the Go module proxy.
ifeq ($(CLUSTER),real)
bench-peer: deps kube helm sandboxd-binary sandboxd-csi-binary console
	@bash hack/cluster/deps.sh
	@bash hack/cluster/build.sh >/dev/null
	$(NODE) bench/peer-real.ts
else
bench-peer: deps kube sandboxd-binary
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) $(NODE) bench/peer.ts
endif

# Through the egress gateway against direct, on a real cluster of this machine (bench/egress.ts:
# SVC_E2E_STATE names a running one, else one is brought up and taken down): one JSON line.
bench-egress: deps kube helm sandboxd-binary sandboxd-csi-binary console
	@bash hack/cluster/deps.sh
	@bash hack/cluster/build.sh >/dev/null
	$(NODE) bench/egress.ts

# Time to first output through the API (bench/tti.ts): devnode, and with CLUSTER=real a real
# cluster beside it (brought up with NODES=1 and taken down; SVC_E2E_STATE=STATE uses a running one, as for the e2e tier).
bench-tti: deps kube helm sandboxd-binary sandboxd-csi-binary console
	SVC_KUBE_ASSETS=$$(bash hack/kube/build.sh) CLUSTER=$(CLUSTER) $(NODE) bench/tti.ts

bench-cli: cli-binary
	$(NODE) bench/cli.ts

bench-sandboxd: node_modules/.stamp sandboxd-binary
	$(NODE) bench/sandboxd.ts
