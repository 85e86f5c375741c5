# The tools the targets run, built into bin/ from the Go module proxy at the versions pinned in
# hack/tools/*/go.mod, each the first time it is needed.

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

# The helm CLI, built from the Go module proxy at the version pinned in hack/tools/kube/go.mod,
# stamped as helm's own Makefile does: `helm version` reports it, and lint and template render
# for the Kubernetes minor of its client-go (.Capabilities.KubeVersion, the deprecation checks).
HELM ?= $(LOCALBIN)/helm
HELM_MOD = $(TOOLS_MOD)

# cosign and syft, built from the Go module proxy at the versions pinned in hack/tools/sign,
# stamped so that `cosign version` and the SBOM's creator name their release.
SIGN_MOD = hack/tools/sign
COSIGN ?= $(LOCALBIN)/cosign
SYFT ?= $(LOCALBIN)/syft

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

.PHONY: helm
helm: $(HELM) ## Build the helm CLI pinned in hack/tools/kube/go.mod (first time only).
$(HELM): $(HELM_MOD)/go.mod
	cd $(HELM_MOD) && v=$$(go list -m -f '{{.Version}}' helm.sh/helm/v3) && \
	  k=$$(go list -m -f '{{.Version}}' k8s.io/client-go | sed -E 's/^v0\.([0-9]+)\..*/\1/') && tmp=$(HELM).$$$$.tmp && \
	  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$$v \
	    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$$k \
	    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$$k" \
	  -o $$tmp helm.sh/helm/v3/cmd/helm && mv $$tmp $(HELM)
