##@ Helm

CHART ?= charts/demo-operator

# The OCI registry make helm-push pushes the packaged chart to, as oci://$(CHART_REGISTRY)/charts;
# CHART_REGISTRY_CA_FILE trusts a registry's CA, INSECURE_REGISTRY=true speaks plain HTTP to it.
# helm reads its credentials from `bin/helm registry login` (or docker's config).
CHART_REGISTRY ?= ghcr.io/cmft
CHART_REGISTRY_CA_FILE ?=
# Where make helm-package writes the chart's package.
CHART_PACKAGES ?= $(LOCALBIN)/charts
# The version make helm-package gives the chart: Chart.yaml's unless set.
CHART_VERSION ?= $(shell sed -n 's/^version: //p' $(CHART)/Chart.yaml)

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
