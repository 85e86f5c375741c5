##@ Release

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
