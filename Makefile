# demo-operator's targets, one file of make/ a concern (as cert-manager's make/*.mk): what is
# generated (generate.mk: manifests, generate, docs), lint, tests, the binary and the images
# (build.mk), deployment, the local cluster, Helm, release signing, the OLM bundle and catalog,
# OLM, benchmarks, and the tools they build into bin/ (tools.mk). `make help` lists every
# target; DEVELOPMENT.md tells how to use them.

# The release's version and the manager's image (test/chart checks Chart.yaml's appVersion
# against VERSION here).
VERSION ?= 0.1.0
IMAGE_TAG_BASE ?= ghcr.io/cmft/demo-operator
IMG ?= $(IMAGE_TAG_BASE):$(VERSION)

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

# Everything make builds, the tests and what they build included, builds as the manager's image
# does (CGO_ENABLED=0, -trimpath): the tests run what ships, and the image's compile finds the
# packages the tests compiled in the Go build cache it is lent.
export CGO_ENABLED ?= 0
export GOFLAGS := $(filter-out -trimpath,$(shell go env GOFLAGS)) -trimpath

LOCALBIN ?= $(shell pwd)/bin
KUBECTL ?= kubectl

.PHONY: all
all: build

##@ General

# Lists the targets by section (##@), the tools' section last.
.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(filter-out make/tools.mk,$(MAKEFILE_LIST)) make/tools.mk

# tools.mk first: the other files' rules name the tools' paths it sets as prerequisites, which
# make expands as it reads them.
include make/tools.mk
include make/generate.mk
include make/lint.mk
include make/test.mk
include make/build.mk
include make/deploy.mk
include make/cluster.mk
include make/helm.mk
include make/release.mk
include make/bundle.mk
include make/olm.mk
include make/bench.mk
