##@ Benchmarks

# make bench measures the operator at scale on a kube-apiserver and etcd of its own, each figure
# beside a baseline: bench/RESULTS.md, bench/results.json and the plot. It is never part of make
# test. BENCH_FLAGS adds flags of bench/cmd/bench (go run ./bench/cmd/bench -h lists them).
BENCH ?= $(LOCALBIN)/bench
BENCH_FLAGS ?=
# The manager binary whose RSS the memory figures read, built as the Dockerfile builds it.
BENCH_MANAGER = CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/manager .

.PHONY: bench
bench: envtest ## Benchmarks, never part of make test: bench/README.md.
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" go test -run '^$$' -bench . -benchmem ./controllers/... | grep -E '^(Benchmark|goos|goarch|cpu|pkg)' | tee bench/go-benchmarks.txt
	go build -o $(BENCH) ./bench/cmd/bench
	$(BENCH_MANAGER)
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" $(BENCH) -manager $(LOCALBIN)/manager $(BENCH_FLAGS)

.PHONY: bench-150k
bench-150k: envtest ## Memory, then labelling, at 150,000 pods (a large machine: bench/README.md).
	go build -o $(BENCH) ./bench/cmd/bench
	$(BENCH_MANAGER)
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" $(BENCH) -pods 150000 -runs 1 -scenarios memory -manager $(LOCALBIN)/manager -container-memory=256Mi -plot-sizes= \
		-out bench/results-150k-memory.json -markdown bench/RESULTS-150k-memory.md $(BENCH_FLAGS)
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh)" $(BENCH) -pods 150000 -runs 1 -scenarios labeling -settings defaults -plot-sizes= \
		-out bench/results-150k-labeling.json -markdown bench/RESULTS-150k-labeling.md $(BENCH_FLAGS)

.PHONY: bench-zero-loss
bench-zero-loss: ## Requests lost in a rollout and a scale-down, on the real node: bench/.
	ZERO_LOSS_RESULTS=bench $(MAKE) test-node E2E_FLAGS="-run TestZeroLossRolloutAndScaleDown -v"

.PHONY: bench-cause-to-status
bench-cause-to-status: ## Time from each cause to the app's status, on the real node: bench/.
	CAUSE_TO_STATUS_RESULTS=bench $(MAKE) test-node E2E_FLAGS="-run TestCausesReachStatus -v"
