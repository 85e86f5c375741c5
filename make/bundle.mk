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
