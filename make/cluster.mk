##@ Local cluster

# The local cluster's binaries, built once from the Go module proxy; NODE_ASSETS adds the
# real node's kubelet and kube-proxy.
CLUSTER_ASSETS = $$(hack/control-plane.sh --cluster)
NODE_ASSETS = $$(hack/control-plane.sh --node)

.PHONY: cluster-up
cluster-up: ## Start a local cluster of processes, kwok nodes; bin/cluster/kubeconfig.
	go run ./hack/cluster -bin "$(CLUSTER_ASSETS)" up

.PHONY: cluster-up-node
cluster-up-node: ## The local cluster plus a real node (root, Linux; DEVELOPMENT.md).
	go run ./hack/cluster -bin "$(NODE_ASSETS)" -real-node up

.PHONY: cluster-down
cluster-down: ## Stop the local cluster and delete its state (real node included).
	go run ./hack/cluster down

.PHONY: demo
demo: ## Local cluster (or KUBECONFIG's), the operator, the samples, the result.
	go build -o bin/manager .
	go run ./hack/cluster -bin "$$(if [ -z "$$KUBECONFIG" ]; then hack/control-plane.sh --cluster; fi)" demo
