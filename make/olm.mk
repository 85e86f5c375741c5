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
