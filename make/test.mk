##@ Test

# The tools' paths, for the tests that run them (internal/test/sdkbundle runs make bundle).
TOOL_PATHS = CONTROLLER_GEN="$(CONTROLLER_GEN)" KUSTOMIZE="$(KUSTOMIZE)" OPERATOR_SDK="$(OPERATOR_SDK)" PROMTOOL="$(PROMTOOL)" HELM="$(HELM)" CRD_REF_DOCS="$(CRD_REF_DOCS)"
GO_TEST_FLAGS ?= -timeout 30m
# make test-e2e shows each test and the measured failover times; make test only the verdict.
E2E_FLAGS ?= -v

.PHONY: envtest
envtest: ## Build kube-apiserver, etcd and kubectl into bin/ (first time only).
	@hack/control-plane.sh >/dev/null

# The fast loop: every unit and envtest test of the product (api, controllers, internal/manager,
# main) and of what needs no tool but envtest's control plane (the test harness, the typed client,
# the layout, the docs, the restraint policies); no root, no other tool built. DEVELOPMENT.md.
UNIT_PKGS = . ./api/... ./controllers/... ./internal/manager/... ./internal/test/... ./test/client/ ./test/layout/ ./test/docs/ ./test/restraint/
# WHAT narrows make test-unit to some packages (go test's patterns), RUN to the tests matching
# a regular expression (go test -run): WHAT=./controllers/podlabel/ RUN=TestPodLabeler.
WHAT ?= $(UNIT_PKGS)
RUN ?=

.PHONY: test-unit
test-unit: envtest ## The fast loop, before every commit, no root (WHAT=<packages> RUN=<tests>).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" go test $(GO_TEST_FLAGS)$(if $(RUN), -run '$(RUN)') $(WHAT)

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
test-image-tools: ## The images through docker, podman, buildah, multi-arch (root).
	go test -tags imagetools -timeout 90m -count 1 -v ./test/images/tools/

.PHONY: test-node
test-node: skipper helm ## End-to-end tests on the real node (root, Linux; test/e2e/README.md).
	NODE_ASSETS="$(NODE_ASSETS)" SKIPPER="$(SKIPPER)" HELM="$(HELM)" go test -tags node -timeout 30m -count 1 $(E2E_FLAGS) ./test/e2e/node

.PHONY: test-reliability
test-reliability: ## Reliability tests on the real node (root; test/reliability/README.md).
	NODE_ASSETS="$(NODE_ASSETS)" go test -tags reliability -timeout 30m -count 1 $(E2E_FLAGS) ./test/reliability

.PHONY: test-e2e
test-e2e: ## End-to-end tests on a local cluster of kwok nodes (test/e2e/README.md).
	E2E_ASSETS="$(CLUSTER_ASSETS)" go test -tags e2e -p 1 -timeout 20m -count 1 $(E2E_FLAGS) ./test/e2e ./test/e2e/quickstart
