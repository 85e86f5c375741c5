##@ Lint

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
