# Image URL to use all building/pushing image targets
VERSION ?= 0.1.0
IMAGE_TAG_BASE ?= ghcr.io/cmft/demo-operator
IMG ?= $(IMAGE_TAG_BASE):$(VERSION)

# The container tool that builds and pushes the images: docker, podman or buildah (daemonless;
# `buildah bud` builds). The tests build with buildah through internal/devtools/imagebuild.
CONTAINER_TOOL ?= docker
# The build machine's platform, which the Dockerfiles' builder stages run on (FROM
# --platform=$BUILDPLATFORM): BuildKit sets it itself, but docker's classic builder (docker 20.10
# without buildx) and buildah 1.28 (podman 4.3) do not, so every build passes it.
BUILDPLATFORM ?= $(shell go env GOHOSTOS)/$(shell go env GOHOSTARCH)
# A build for each platform of --platform (make docker-buildx), where the tool sets TARGETPLATFORM,
# and a build for the machine's platform, where docker's classic builder does not.
CONTAINER_BUILD_PLATFORMS = $(CONTAINER_TOOL) $(if $(filter buildah,$(notdir $(CONTAINER_TOOL))),bud,build) --build-arg BUILDPLATFORM=$(BUILDPLATFORM) $(BUILD_FLAGS)
CONTAINER_BUILD = $(CONTAINER_BUILD_PLATFORMS) --build-arg TARGETPLATFORM=$(BUILDPLATFORM)
# BUILD_FLAGS adds flags to every image build, e.g. --network host.
BUILD_FLAGS ?=
# The platforms make docker-buildx and catalog-buildx build for, those of operator-sdk's
# scaffold; the bundle's CSV declares the same (operatorframework.io/arch labels).
PLATFORMS ?= linux/amd64,linux/arm64,linux/s390x,linux/ppc64le
# INSECURE_REGISTRY=true pushes to a plain-HTTP registry (podman and buildah: --tls-verify=false;
# docker reads insecure-registries from its daemon's configuration instead, and treats
# localhost as one).
INSECURE_REGISTRY ?= false
TLS_VERIFY = $(if $(and $(filter true,$(INSECURE_REGISTRY)),$(filter-out docker,$(notdir $(CONTAINER_TOOL)))),--tls-verify=false)
CONTAINER_PUSH = $(CONTAINER_TOOL) push $(TLS_VERIFY)

# $(call BUILDX,image,Dockerfile) builds image for every platform of PLATFORMS and pushes them as
# one manifest list: with docker through buildx (BuildKit), with podman and buildah as a local
# manifest list (--manifest), made anew so that a rebuild does not add a second image per
# platform. The builder stages cross-compile, so no emulation (qemu, binfmt) is needed. No layer
# cache (podman's default): podman 4.3 finds a cached step by its parent and instruction, not
# its platform, and gave the list's amd64 image another platform's configuration.
ifeq ($(notdir $(CONTAINER_TOOL)),docker)
BUILDX = $(CONTAINER_TOOL) buildx build --push --platform=$(PLATFORMS) $(BUILD_FLAGS) -f $(2) -t $(1) .
else
BUILDX = { $(CONTAINER_TOOL) manifest rm $(1) >/dev/null 2>&1 || true; } && \
	$(CONTAINER_BUILD_PLATFORMS) --layers=false --platform=$(PLATFORMS) --manifest $(1) -f $(2) . && \
	$(CONTAINER_TOOL) manifest push --all $(TLS_VERIFY) $(1) docker://$(1)
endif

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

# Everything make builds, the tests and what they build included, builds as the manager's image
# does (CGO_ENABLED=0, -trimpath): the tests run what ships, and the image's compile finds the
# packages the tests compiled in the Go build cache it is lent.
export CGO_ENABLED ?= 0
export GOFLAGS := $(filter-out -trimpath,$(shell go env GOFLAGS)) -trimpath

LOCALBIN ?= $(shell pwd)/bin
# The control plane and every tool built on its Kubernetes libraries share one tools module,
# built with one set of flags, so that each k8s.io package compiles once for them all.
TOOLS_MOD = hack/tools/kube
TOOLS_BUILD = cd $(TOOLS_MOD) && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w"
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CRD_REF_DOCS ?= $(LOCALBIN)/crd-ref-docs
# operator-sdk's CLI, built from the Go module proxy by hack/operator-sdk.sh (make operator-sdk).
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk
# The client generators hack/update-codegen.sh runs from bin/.
CODEGEN_TOOLS = client-gen lister-gen informer-gen applyconfiguration-gen
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint
LINT_MOD = hack/tools/lint
PROMTOOL ?= $(LOCALBIN)/promtool
KUBE_SCORE ?= $(LOCALBIN)/kube-score
KUBE_SCORE_MOD = hack/tools/kube-score
SKIPPER ?= $(LOCALBIN)/skipper
SKIPPER_MOD = hack/tools/skipper
KUBECTL ?= kubectl
# The tools' paths, for the tests that run them (internal/test/sdkbundle runs make bundle).
TOOL_PATHS = CONTROLLER_GEN="$(CONTROLLER_GEN)" KUSTOMIZE="$(KUSTOMIZE)" OPERATOR_SDK="$(OPERATOR_SDK)" PROMTOOL="$(PROMTOOL)" HELM="$(HELM)" CRD_REF_DOCS="$(CRD_REF_DOCS)"
GO_TEST_FLAGS ?= -timeout 30m

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## The CRD and the ClusterRoles from the markers, copied into the chart.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="{./api/...,./controllers/...}" output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	go run ./hack/crd-trim config/crd/bases/*.yaml
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths=./controllers/podlabel/... output:rbac:artifacts:config=config/pod-labeler-only
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths=./controllers/demoapplication/... output:rbac:artifacts:config=config/demoapplication-only
	hack/sync-chart.sh

.PHONY: generate
generate: controller-gen codegen-tools ## The API types' DeepCopy methods and the typed client in pkg/generated.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."
	hack/update-codegen.sh

.PHONY: docs
docs: crd-ref-docs ## The API reference, docs/reference/api.md, from api/v1 (crd-ref-docs).
	$(CRD_REF_DOCS) --source-path=api/v1 --config=hack/crd-ref-docs/config.yaml --templates-dir=hack/crd-ref-docs/markdown --renderer=markdown --max-depth=20 \
	  --log-level=WARN --output-path=docs/reference/api.md

.PHONY: fmt
fmt: ## Run go fmt against code.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet against code.
	go vet ./...

.PHONY: lint
lint: golangci-lint kube-score ## make kube-score, then golangci-lint with every tier's build tags.
	$(GOLANGCI_LINT) run

# The checks of kube-score the manifests fail on purpose:
# - pod-networkpolicy: the ingress NetworkPolicy is opt-in (its metrics scrapers' namespaces are
#   the cluster's), and no egress one: the API server's address is the cluster's, often a host one
#   NetworkPolicies cannot select.
# - container-security-context-user-group-id: no runAsUser, so that OpenShift's restricted SCC
#   picks one from the namespace's range; the image's user is 65532, and runAsNonRoot holds.
# - container-image-pull-policy: IfNotPresent, the image being a version tag or a digest; Always
#   would make every restart depend on the registry.
# - container-ephemeral-storage-request-and-limit: the root filesystem is read-only and the
#   manager mounts no volume, its log (rotated by the kubelet) is all it writes; nodes that report
#   no ephemeral-storage (kwok's) could not schedule a pod requesting some.
# - deployment-has-host-podantiaffinity: the pods are spread over nodes by
#   topologySpreadConstraints, which kube-score does not read.
# config/default runs one replica, as kubebuilder's does (deployment-replicas); the chart two.
KUBE_SCORE_FLAGS = score --kubernetes-version v1.37 --exit-one-on-warning --output-format ci \
	--enable-optional-test container-seccomp-profile \
	--ignore-test pod-networkpolicy,container-security-context-user-group-id,container-image-pull-policy,container-ephemeral-storage-request-and-limit,deployment-has-host-podantiaffinity
# Prints the findings only; kube-score's exit status fails the pipeline (pipefail).
KUBE_SCORE_FINDINGS = awk '!/^\[(OK|SKIPPED)\]/'

.PHONY: kube-score
kube-score: $(KUBE_SCORE) kustomize helm ## kube-score on the chart (default and ci/*-values.yaml) and config/default.
	@for values in "" $(wildcard $(CHART)/ci/*-values.yaml); do \
	  echo "kube-score: $(CHART) $${values:-(default values)}"; \
	  $(HELM) template $(notdir $(CHART)) $(CHART) -n demo-operator-system $${values:+-f $$values} | $(KUBE_SCORE) $(KUBE_SCORE_FLAGS) - | $(KUBE_SCORE_FINDINGS) || exit 1; \
	done
	@echo "kube-score: config/default"
	@$(KUSTOMIZE) build config/default | $(KUBE_SCORE) $(KUBE_SCORE_FLAGS) --ignore-test deployment-replicas - | $(KUBE_SCORE_FINDINGS)

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and apply its fixes.
	$(GOLANGCI_LINT) run --fix

.PHONY: envtest
envtest: ## Build kube-apiserver and etcd into bin/ (first time only).
	@hack/control-plane.sh >/dev/null

# The fast loop: every unit and envtest test of the product (api, controllers, internal/manager,
# main) and of what needs no tool but envtest's control plane (the test harness, the typed client,
# the layout, the docs, the restraint policies); no root, no other tool built. DEVELOPMENT.md.
UNIT_PKGS = . ./api/... ./controllers/... ./internal/manager/... ./internal/test/... ./test/client/ ./test/layout/ ./test/docs/ ./test/restraint/

.PHONY: test-unit
test-unit: envtest ## The fast loop, before every commit: unit and envtest tests, no root.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" go test $(GO_TEST_FLAGS) $(UNIT_PKGS)

# make test ends with the kwok cluster's tests and the real node's side by side: the node's mostly
# wait for pods, each runs a cluster of its own (ports, directories), and each one's output is
# printed once it ends.
.PHONY: test
test: controller-gen codegen-tools crd-ref-docs kustomize operator-sdk promtool helm envtest ## The whole gate: unit, envtest, staleness, chart, bundle, e2e, real node.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" $(TOOL_PATHS) go test $(GO_TEST_FLAGS) $$(go list ./... | grep -v /test/images) -coverprofile cover.out
	$(MAKE) -j2 --output-sync=target test-e2e test-node E2E_FLAGS=

.PHONY: test-images
test-images: envtest ## Build the three images with buildah and check them (root, buildah).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" go test $(GO_TEST_FLAGS) -count 1 -v ./internal/devtools/imagebuild/ ./test/images/

.PHONY: test-image-tools
test-image-tools: ## The images through docker, podman, buildah, multi-arch (root; ~10 min).
	go test -tags imagetools -timeout 90m -count 1 -v ./test/images/tools/

.PHONY: verify
verify: generate manifests ## Fail when a generated file differs from what is committed.
	@git diff --exit-code -- api config pkg/generated charts/demo-operator/files || { echo "generated files are stale: run make generate manifests and commit"; exit 1; }

##@ Build

.PHONY: build
build: generate fmt vet ## Build the manager binary.
	go build -o bin/manager main.go

# make build-installer sets the image in a copy of config/, so config/manager keeps its own.
.PHONY: build-installer
build-installer: manifests kustomize ## dist/install.yaml: config/default in one file, with IMG.
	mkdir -p dist
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cp -r config "$$tmp/" && \
	  (cd "$$tmp/config/manager" && $(KUSTOMIZE) edit set image controller=$(IMG)) && \
	  $(KUSTOMIZE) build "$$tmp/config/default" > dist/install.yaml

.PHONY: run
run: manifests generate fmt vet ## Run the manager from your host against the cluster in KUBECONFIG.
	go run ./main.go

.PHONY: docker-build
docker-build: ## Build the manager's image (CONTAINER_TOOL=docker|podman|buildah).
	$(CONTAINER_BUILD) -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the manager's image (INSECURE_REGISTRY=true for a plain-HTTP registry).
	$(CONTAINER_PUSH) $(IMG)

.PHONY: docker-buildx
docker-buildx: ## The manager's image for PLATFORMS as one manifest list IMG.
	$(call BUILDX,$(IMG),Dockerfile)

##@ Deployment

ifndef ignore-not-found
  ignore-not-found = false
endif

.PHONY: install
install: manifests kustomize ## Install the CRD into the cluster in KUBECONFIG.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Uninstall the CRD from KUBECONFIG's cluster (ignore-not-found=true).
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator (CRD, RBAC, manager) to the cluster in KUBECONFIG.
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/default | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: kustomize ## Remove the operator from KUBECONFIG's cluster (ignore-not-found=true).
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ Local cluster

# The local cluster's binaries, built once from the Go module proxy; NODE_ASSETS adds the
# real node's kubelet and kube-proxy, and kubectl for the chart's test image.
CLUSTER_ASSETS = $$(hack/control-plane.sh --cluster)
NODE_ASSETS = $$(hack/control-plane.sh --node)
# make test-e2e shows each test and the measured failover times; make test only the verdict.
E2E_FLAGS ?= -v

.PHONY: cluster-up
cluster-up: ## Start a local cluster of processes, kwok nodes; bin/cluster/kubeconfig.
	go run ./hack/cluster -bin "$(CLUSTER_ASSETS)" up

.PHONY: cluster-up-node
cluster-up-node: ## The local cluster plus a real node (root, Linux; DEVELOPMENT.md).
	go run ./hack/cluster -bin "$(NODE_ASSETS)" -real-node up

.PHONY: cluster-down
cluster-down: ## Stop the local cluster and delete its state (real node included).
	go run ./hack/cluster down

.PHONY: demo
demo: ## Local cluster (or KUBECONFIG's), the operator, the samples, the result.
	go build -o bin/manager .
	go run ./hack/cluster -bin "$$(if [ -z "$$KUBECONFIG" ]; then hack/control-plane.sh --cluster; fi)" demo

.PHONY: test-node
test-node: skipper helm ## End-to-end tests on the real node (root, Linux; test/e2e/README.md).
	NODE_ASSETS="$(NODE_ASSETS)" SKIPPER="$(SKIPPER)" HELM="$(HELM)" go test -tags node -timeout 30m -count 1 $(E2E_FLAGS) ./test/e2e/node

.PHONY: test-reliability
test-reliability: ## Reliability tests on the real node (root; test/reliability/README.md).
	NODE_ASSETS="$(NODE_ASSETS)" go test -tags reliability -timeout 30m -count 1 $(E2E_FLAGS) ./test/reliability

.PHONY: test-e2e
test-e2e: ## End-to-end tests on a local cluster of kwok nodes (test/e2e/README.md).
	E2E_ASSETS="$(CLUSTER_ASSETS)" go test -tags e2e -p 1 -timeout 20m -count 1 $(E2E_FLAGS) ./test/e2e ./test/e2e/quickstart

##@ Helm

CHART ?= charts/demo-operator
# The helm CLI, built from the Go module proxy at the version pinned in hack/tools/kube/go.mod,
# stamped as helm's own Makefile does: `helm version` reports it, and lint and template render
# for the Kubernetes minor of its client-go (.Capabilities.KubeVersion, the deprecation checks).
HELM ?= $(LOCALBIN)/helm
HELM_MOD = $(TOOLS_MOD)
# The OCI registry make helm-push pushes the packaged chart to, as oci://$(CHART_REGISTRY)/charts;
# CHART_REGISTRY_CA_FILE trusts a registry's CA, INSECURE_REGISTRY=true speaks plain HTTP to it.
# helm reads its credentials from `bin/helm registry login` (or docker's config).
CHART_REGISTRY ?= ghcr.io/cmft
CHART_REGISTRY_CA_FILE ?=
# Where make helm-package writes the chart's package.
CHART_PACKAGES ?= $(LOCALBIN)/charts
# The version make helm-package gives the chart: Chart.yaml's unless set.
CHART_VERSION ?= $(shell sed -n 's/^version: //p' $(CHART)/Chart.yaml)

.PHONY: helm
helm: $(HELM) ## Build the helm CLI pinned in hack/tools/kube/go.mod (first time only).
$(HELM): $(HELM_MOD)/go.mod
	cd $(HELM_MOD) && v=$$(go list -m -f '{{.Version}}' helm.sh/helm/v3) && \
	  k=$$(go list -m -f '{{.Version}}' k8s.io/client-go | sed -E 's/^v0\.([0-9]+)\..*/\1/') && tmp=$(HELM).$$$$.tmp && \
	  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$$v \
	    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$$k \
	    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$$k" \
	  -o $$tmp helm.sh/helm/v3/cmd/helm && mv $$tmp $(HELM)

.PHONY: helm-lint
helm-lint: helm ## Lint the chart (strict).
	$(HELM) lint --strict $(CHART)

.PHONY: helm-template
helm-template: helm ## Render the chart with its default values (VALUES=file for others).
	$(HELM) template $(notdir $(CHART)) $(CHART) -n demo-operator-system $(if $(VALUES),-f $(VALUES))

.PHONY: helm-readme
helm-readme: ## Regenerate the chart README's values table from values.yaml.
	go run ./hack/helm-readme $(CHART)

.PHONY: helm-package
helm-package: manifests helm ## Package the chart into bin/charts, appVersion $(VERSION).
	$(HELM) package $(CHART) -d $(CHART_PACKAGES) --version $(CHART_VERSION) --app-version $(VERSION)

.PHONY: helm-push
helm-push: helm-package ## Push the package to oci://$(CHART_REGISTRY)/charts/demo-operator.
	$(HELM) push $(CHART_PACKAGES)/$(notdir $(CHART))-$(CHART_VERSION).tgz oci://$(CHART_REGISTRY)/charts \
	  $(if $(CHART_REGISTRY_CA_FILE),--ca-file $(CHART_REGISTRY_CA_FILE)) $(if $(filter true,$(INSECURE_REGISTRY)),--plain-http)

##@ Release

# cosign and syft, built from the Go module proxy at the versions pinned in hack/tools/sign,
# stamped so that `cosign version` and the SBOM's creator name their release.
SIGN_MOD = hack/tools/sign
COSIGN ?= $(LOCALBIN)/cosign
SYFT ?= $(LOCALBIN)/syft
# The key pair make sign and make verify-signatures use (cosign generate-key-pair); cosign reads
# the private key's password from COSIGN_PASSWORD.
COSIGN_KEY ?= cosign.key
COSIGN_PUBLIC_KEY ?= cosign.pub
# The CA of the registries holding the images and the chart, for a private one; cosign trusts it
# alone for them (--registry-cacert), syft besides the machine's CAs. INSECURE_REGISTRY=true
# speaks plain HTTP to them instead.
REGISTRY_CA_FILE ?=
# The chart make helm-push publishes.
CHART_REF = $(CHART_REGISTRY)/charts/$(notdir $(CHART)):$(CHART_VERSION)
# The manager image's SPDX SBOM, which make sign attaches to it as a signed attestation.
SBOM = $(LOCALBIN)/sbom/$(subst :,-,$(notdir $(IMG))).spdx.json
COSIGN_REGISTRY_FLAGS = $(if $(REGISTRY_CA_FILE),--registry-cacert $(REGISTRY_CA_FILE)) $(if $(filter true,$(INSECURE_REGISTRY)),--allow-http-registry)
# The signatures go to the registry only: hack/sign/signing-config.json names no Fulcio, Rekor
# or timestamp authority, so nothing is uploaded to a transparency log (which needs the internet)
# and verifying skips it (--insecure-ignore-tlog). Refs are signed by tag: cosign resolves each
# once and signs that digest, warning that a future release wants digests, which no tool here
# (crane, skopeo) resolves for it.
COSIGN_SIGN_FLAGS = --yes --key $(COSIGN_KEY) --signing-config hack/sign/signing-config.json $(COSIGN_REGISTRY_FLAGS)
COSIGN_VERIFY_FLAGS = --key $(COSIGN_PUBLIC_KEY) --insecure-ignore-tlog $(COSIGN_REGISTRY_FLAGS)

.PHONY: sign
sign: sign-tools ## Sign the three images and the chart, attest IMG's SBOM (COSIGN_KEY).
	for ref in $(IMG) $(BUNDLE_IMG) $(CATALOG_IMG) $(CHART_REF); do $(COSIGN) sign $(COSIGN_SIGN_FLAGS) $$ref; done
	mkdir -p $(dir $(SBOM))
	SYFT_CHECK_FOR_APP_UPDATE=false $(if $(REGISTRY_CA_FILE),SYFT_REGISTRY_CA_CERT=$(REGISTRY_CA_FILE)) \
	  $(if $(filter true,$(INSECURE_REGISTRY)),SYFT_REGISTRY_INSECURE_USE_HTTP=true) $(SYFT) scan -q registry:$(IMG) -o spdx-json=$(SBOM)
	$(COSIGN) attest $(COSIGN_SIGN_FLAGS) --type spdxjson --predicate $(SBOM) $(IMG)

.PHONY: verify-signatures
verify-signatures: $(COSIGN) ## Verify make sign's signatures and attestation (COSIGN_PUBLIC_KEY).
	for ref in $(IMG) $(BUNDLE_IMG) $(CATALOG_IMG) $(CHART_REF); do $(COSIGN) verify $(COSIGN_VERIFY_FLAGS) $$ref >/dev/null; done
	$(COSIGN) verify-attestation $(COSIGN_VERIFY_FLAGS) --type spdxjson $(IMG) >/dev/null

##@ Tools

.PHONY: tools
tools: tools-first golangci-lint $(KUBE_SCORE) olm-binaries skipper sign-tools ## Build every tool the tests and make lint run into bin/ (first time only).

.PHONY: tools-first
tools-first: controller-gen kustomize codegen-tools crd-ref-docs helm operator-sdk scorecard-test node-binaries promtool ## Build the tools make test starts with (generators, helm, operator-sdk...).

.PHONY: scorecard-test
scorecard-test: ## Build scorecard-test at operator-sdk's version (first time only).
	@hack/operator-sdk.sh --scorecard-test >/dev/null

.PHONY: node-binaries
node-binaries: ## Build the control plane and the real node's binaries (first time only).
	@hack/control-plane.sh --node >/dev/null

.PHONY: olm-binaries
olm-binaries: ## Build OLM's binaries and opm (first time only).
	@hack/olm.sh >/dev/null

.PHONY: opm
opm: ## Build opm and grpc_health_probe for the catalog's stand-in base image.
	@hack/olm.sh --opm >/dev/null

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen at the version pinned in hack/tools/kube/go.mod.
$(CONTROLLER_GEN): $(TOOLS_MOD)/go.mod
	$(TOOLS_BUILD) -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize at the version pinned in hack/tools/kube/go.mod.
$(KUSTOMIZE): $(TOOLS_MOD)/go.mod
	$(TOOLS_BUILD) -o $(KUSTOMIZE) sigs.k8s.io/kustomize/kustomize/v5

.PHONY: crd-ref-docs
crd-ref-docs: $(CRD_REF_DOCS) ## Build crd-ref-docs, pinned in hack/tools/kube/go.mod.
$(CRD_REF_DOCS): $(TOOLS_MOD)/go.mod
	$(TOOLS_BUILD) -o $(CRD_REF_DOCS) github.com/elastic/crd-ref-docs

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint at the version pinned in hack/tools/lint/go.mod.
$(GOLANGCI_LINT): $(LINT_MOD)/go.mod
	cd $(LINT_MOD) && go build -o $(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

$(KUBE_SCORE): $(KUBE_SCORE_MOD)/go.mod
	cd $(KUBE_SCORE_MOD) && v=$$(go list -m -f '{{.Version}}' github.com/zegl/kube-score) && \
	  go build -ldflags "-X main.version=$$v" -o $(KUBE_SCORE) github.com/zegl/kube-score/cmd/kube-score

.PHONY: sign-tools
sign-tools: $(COSIGN) $(SYFT) ## Build cosign and syft, pinned in hack/tools/sign (first time only).

# A temporary file and mv: CI's image tier and its OLM tier may both build them at once.
$(COSIGN): $(SIGN_MOD)/go.mod
	cd $(SIGN_MOD) && v=$$(go list -m -f '{{.Version}}' github.com/sigstore/cosign/v3) && tmp=$(COSIGN).$$$$.tmp && \
	  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X sigs.k8s.io/release-utils/version.gitVersion=$$v" \
	  -o $$tmp github.com/sigstore/cosign/v3/cmd/cosign && mv $$tmp $(COSIGN)

$(SYFT): $(SIGN_MOD)/go.mod
	cd $(SIGN_MOD) && v=$$(go list -m -f '{{.Version}}' github.com/anchore/syft) && tmp=$(SYFT).$$$$.tmp && \
	  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$${v#v}" -o $$tmp github.com/anchore/syft/cmd/syft && mv $$tmp $(SYFT)

.PHONY: promtool
promtool: $(PROMTOOL) ## Build promtool, pinned in hack/tools/kube/go.mod.
$(PROMTOOL): $(TOOLS_MOD)/go.mod
	cd $(TOOLS_MOD) && v=$$(go list -m -f '{{.Version}}' github.com/prometheus/prometheus) && \
	  CGO_ENABLED=0 go build -trimpath -tags remove_all_sd -ldflags "-s -w \
	    -X github.com/prometheus/common/version.Version=$$(echo $$v | sed -E 's/^v0\.([0-9])0?([0-9]+)\./\1.\2./')" \
	  -o $(PROMTOOL) github.com/prometheus/prometheus/cmd/promtool

.PHONY: skipper
skipper: $(SKIPPER) ## Build Skipper, the real-node tests' Ingress controller (first time only).
$(SKIPPER): $(SKIPPER_MOD)/go.mod
	cd $(SKIPPER_MOD) && v=$$(go list -m -f '{{.Version}}' github.com/zalando/skipper) && tmp=$(SKIPPER).$$$$.tmp && \
	  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$$v" -o $$tmp github.com/zalando/skipper/cmd/skipper && mv $$tmp $(SKIPPER)

.PHONY: operator-sdk
operator-sdk: ## Build bin/operator-sdk (first time only); OPERATOR_SDK=<path> uses yours.
	@[ "$(OPERATOR_SDK)" != "$(LOCALBIN)/operator-sdk" ] || hack/operator-sdk.sh >/dev/null

.PHONY: codegen-tools
codegen-tools: $(addprefix $(LOCALBIN)/,$(CODEGEN_TOOLS)) ## Build the client generators, pinned in hack/tools/kube/go.mod.
$(addprefix $(LOCALBIN)/,$(CODEGEN_TOOLS)): $(TOOLS_MOD)/go.mod
	$(TOOLS_BUILD) -o $@ k8s.io/code-generator/cmd/$(notdir $@)

##@ Bundle

# The OLM package, its channels and the images `make bundle catalog` describe. Channel names
# follow OLM's convention (candidate, fast, stable), which the good-practices validator checks.
PACKAGE ?= demo-operator
CHANNELS ?= candidate,stable
DEFAULT_CHANNEL ?= stable
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)
# The bundle image each new olm.bundle of the catalog names: OLM's catalog operator pulls and
# unpacks it at install time, as file-based catalogs require.
CATALOG_BUNDLE_IMG ?= $(BUNDLE_IMG)
# opm validates the catalog when installed.
OPM ?= $(shell command -v opm 2>/dev/null)

# make bundle is operator-sdk's own recipe, made reproducible: operator-sdk stamps createdAt with
# the time of the run, so the release date of the CSV base is put back; and the scorecard
# configuration is written as kustomize builds it, without the empty storage fields operator-sdk
# adds. containerImage and relatedImages name the manager's image through config/manifests.
CSV_BASE = config/manifests/bases/$(PACKAGE).clusterserviceversion.yaml
BUNDLE_CSV = bundle/manifests/$(PACKAGE).clusterserviceversion.yaml
# USE_IMAGE_DIGESTS=true names the images by digest in the bundle, the CSV's deployment and
# relatedImages (operator-sdk resolves IMG in its registry), as a disconnected cluster's mirror
# needs them: the CSV then declares the disconnected feature.
USE_IMAGE_DIGESTS ?= false

.PHONY: bundle
bundle: manifests kustomize operator-sdk ## bundle/ and bundle.Dockerfile for VERSION with operator-sdk, validated.
	$(OPERATOR_SDK) generate kustomize manifests -q --interactive=false
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/manifests | $(OPERATOR_SDK) generate bundle -q --overwrite --package $(PACKAGE) --version $(VERSION) --channels $(CHANNELS) --default-channel $(DEFAULT_CHANNEL) \
	  $(if $(filter true,$(USE_IMAGE_DIGESTS)),--use-image-digests)
	sed -i "s/^    createdAt: .*/$$(grep -m1 '^    createdAt: ' $(CSV_BASE))/" $(BUNDLE_CSV)
	$(if $(filter true,$(USE_IMAGE_DIGESTS)),sed -i 's|^\(    features.operators.openshift.io/disconnected:\) "false"|\1 "true"|' $(BUNDLE_CSV))
	$(KUSTOMIZE) build config/scorecard > bundle/tests/scorecard/config.yaml
	$(OPERATOR_SDK) bundle validate ./bundle --select-optional suite=operatorframework
	$(OPERATOR_SDK) bundle validate ./bundle --select-optional name=good-practices

.PHONY: bundle-build
bundle-build: ## Build the bundle image.
	$(CONTAINER_BUILD) -f bundle.Dockerfile -t $(BUNDLE_IMG) .

.PHONY: bundle-push
bundle-push: ## Push the bundle image.
	$(CONTAINER_PUSH) $(BUNDLE_IMG)

.PHONY: catalog
catalog: ## Add bundle/ to catalog/ as the head of its channels.
	go run ./hack/bundle catalog --bundle bundle --catalog catalog/$(PACKAGE) --bundle-image "$(CATALOG_BUNDLE_IMG)"
ifneq ($(OPM),)
	$(OPM) validate catalog
endif

.PHONY: catalog-build
catalog-build: ## Build the catalog image (opm serving catalog/).
	$(CONTAINER_BUILD) -f catalog.Dockerfile -t $(CATALOG_IMG) .

.PHONY: catalog-push
catalog-push: ## Push the catalog image.
	$(CONTAINER_PUSH) $(CATALOG_IMG)

.PHONY: catalog-buildx
catalog-buildx: ## The catalog image for PLATFORMS as one manifest list CATALOG_IMG.
	$(call BUILDX,$(CATALOG_IMG),catalog.Dockerfile)

##@ OLM

# Operator Lifecycle Manager's olm and catalog operators, and opm, built once from the Go
# module proxy by hack/olm.sh, next to OLM's CRDs.
OLM_ASSETS = $$(hack/olm.sh)

.PHONY: olm-up
olm-up: ## Run OLM on the local cluster: as processes, or as pods on a real node.
	go run ./hack/olm -bin "$(CLUSTER_ASSETS)" -olm "$(OLM_ASSETS)" up

.PHONY: olm-down
olm-down: ## Stop OLM's operators, or delete its release from a real-node cluster.
	go run ./hack/olm -olm "$(OLM_ASSETS)" down

# run-bundle, run-bundle-upgrade and cleanup-bundle run cmd/olmrun (internal/devtools/olm), not
# operator-sdk: they do what `operator-sdk run bundle`, `run bundle-upgrade` and `cleanup` do,
# and what the CLI (bin/operator-sdk, make operator-sdk) cannot: install into a namespace that
# enforces the restricted Pod Security Standard (operator-framework/operator-sdk#7039), and clean
# up without deleting the CRD and so every DemoApplication. They work on the cluster of
# KUBECONFIG (or ~/.kube/config), which must run OLM. NAMESPACE empty: the kubeconfig
# context's. INSTALL_MODE empty: AllNamespaces if the CSV supports it (else OwnNamespace,
# SingleNamespace=<ns>, MultiNamespace=<ns>,<ns>). INDEX_IMG runs the registry pod serving the
# bundle's catalog. USE_HTTP=true pulls the bundle image over plain HTTP (--use-http), for a registry
# without TLS; SSL_CERT_DIR=/etc/ssl/certs:<dir> trusts a registry's CA in <dir> (the local cluster's).
NAMESPACE ?=
INSTALL_MODE ?=
INDEX_IMG ?= quay.io/operator-framework/opm:v1.60.0
USE_HTTP ?= false
RUN_BUNDLE_TIMEOUT ?= 5m
OLMRUN_FLAGS = -namespace "$(NAMESPACE)" -timeout $(RUN_BUNDLE_TIMEOUT)

.PHONY: run-bundle
run-bundle: ## Install BUNDLE_IMG through OLM with cmd/olmrun (operator-sdk run bundle).
	go run ./cmd/olmrun run $(OLMRUN_FLAGS) -install-mode "$(INSTALL_MODE)" -index-image "$(INDEX_IMG)" -use-http=$(USE_HTTP) "$(BUNDLE_IMG)"

.PHONY: run-bundle-upgrade
run-bundle-upgrade: ## Upgrade what make run-bundle installed to BUNDLE_IMG.
	go run ./cmd/olmrun upgrade $(OLMRUN_FLAGS) -use-http=$(USE_HTTP) "$(BUNDLE_IMG)"

.PHONY: cleanup-bundle
cleanup-bundle: ## Remove what make run-bundle installed, keeping the CRD and the apps.
	go run ./cmd/olmrun cleanup $(OLMRUN_FLAGS) "$(PACKAGE)"

.PHONY: test-olm
test-olm: controller-gen kustomize operator-sdk ## Install through OLM on a local cluster: install modes, upgrade, uninstall.
	CLUSTER_ASSETS="$(CLUSTER_ASSETS)" OLM_ASSETS="$(OLM_ASSETS)" go test -tags olm -timeout 30m -count 1 -v ./test/olm/...

.PHONY: test-olm-node
test-olm-node: controller-gen kustomize operator-sdk helm ## OLM as pods on the real node, signing, the walk-through (root, Linux).
	NODE_ASSETS="$(NODE_ASSETS)" OLM_ASSETS="$(OLM_ASSETS)" HELM="$(HELM)" COSIGN="$(COSIGN)" SYFT="$(SYFT)" go test -tags olmnode -p 1 -timeout 40m -count 1 $(E2E_FLAGS) ./test/olm/node ./test/olm/walkthrough

##@ Benchmarks

# make bench measures the operator at scale on a kube-apiserver and etcd of its own, each figure
# beside a baseline: bench/RESULTS.md, bench/results.json and the plot. It is never part of make
# test. BENCH_FLAGS adds flags of bench/cmd/bench (go run ./bench/cmd/bench -h lists them).
BENCH ?= $(LOCALBIN)/bench
BENCH_FLAGS ?=
# The manager binary whose RSS the memory figures read, built as the Dockerfile builds it.
BENCH_MANAGER = CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/manager .

.PHONY: bench
bench: envtest ## Benchmarks (about 25 minutes on 2 cores): bench/README.md.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" go test -run '^$$' -bench . -benchmem ./controllers/... | grep -E '^(Benchmark|goos|goarch|cpu|pkg)' | tee bench/go-benchmarks.txt
	go build -o $(BENCH) ./bench/cmd/bench
	$(BENCH_MANAGER)
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" $(BENCH) -manager $(LOCALBIN)/manager $(BENCH_FLAGS)

.PHONY: bench-150k
bench-150k: envtest ## Memory, then labelling, at 150,000 pods (kube-apiserver takes ~5 GB).
	go build -o $(BENCH) ./bench/cmd/bench
	$(BENCH_MANAGER)
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" $(BENCH) -pods 150000 -runs 1 -scenarios memory -manager $(LOCALBIN)/manager -container-memory=256Mi -plot-sizes= \
		-out bench/results-150k-memory.json -markdown bench/RESULTS-150k-memory.md $(BENCH_FLAGS)
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" $(BENCH) -pods 150000 -runs 1 -scenarios labeling -settings defaults -plot-sizes= \
		-out bench/results-150k-labeling.json -markdown bench/RESULTS-150k-labeling.md $(BENCH_FLAGS)

.PHONY: bench-zero-loss
bench-zero-loss: ## Requests lost in a rollout and a scale-down, on the real node: bench/.
	ZERO_LOSS_RESULTS=bench $(MAKE) test-node E2E_FLAGS="-run TestZeroLossRolloutAndScaleDown -v"

.PHONY: bench-cause-to-status
bench-cause-to-status: ## Time from each cause to the app's status, on the real node: bench/.
	CAUSE_TO_STATUS_RESULTS=bench $(MAKE) test-node E2E_FLAGS="-run TestCausesReachStatus -v"
