##@ Build

# The options of every image build and push (this file's and bundle.mk's) come first.

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
