##@ Generate

.PHONY: manifests
manifests: controller-gen ## The CRD and the ClusterRoles from the markers, copied into the chart.
	@# Generated apart, then only the changed files replaced (hack/sync-files.sh).
	out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && \
	  $(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="{./api/...,./controllers/...}" output:crd:artifacts:config=$$out/crd output:rbac:artifacts:config=$$out/rbac && \
	  go run ./hack/crd-trim $$out/crd/*.yaml && \
	  $(CONTROLLER_GEN) rbac:roleName=manager-role paths=./controllers/podlabel/... output:rbac:artifacts:config=$$out/pod-labeler-only && \
	  $(CONTROLLER_GEN) rbac:roleName=manager-role paths=./controllers/demoapplication/... output:rbac:artifacts:config=$$out/demoapplication-only && \
	  hack/sync-files.sh $$out/crd config/crd/bases && \
	  for dir in rbac pod-labeler-only demoapplication-only; do hack/sync-files.sh $$out/$$dir config/$$dir; done
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

.PHONY: verify
verify: generate manifests ## Fail when a generated file differs from what is committed.
	@git diff --exit-code -- api config pkg/generated charts/demo-operator/files || { echo "generated files are stale: run make generate manifests and commit"; exit 1; }
