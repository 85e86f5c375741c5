package localcluster

import (
	"context"
	"strings"
	"testing"
)

// TestFreePortBaseKeepsClearOfNodePorts: the ports of every cluster a test run starts are below
// the node ports, which kube-proxy takes over on the node's addresses once a Service holds one.
func TestFreePortBaseKeepsClearOfNodePorts(t *testing.T) {
	// FreePortBase starts from a random slot: a thousand draws reach every one of them.
	for range 1000 {
		base, err := FreePortBase()
		if err != nil {
			t.Fatal(err)
		}
		if last := base + portsUsed - 1; last >= firstNodePort {
			t.Fatalf("FreePortBase returned ports %d-%d, into the node ports from %d", base, last, firstNodePort)
		}
	}
}

// TestUpRefusesNodePorts: a cluster asked for ports among the node ports is refused before
// anything starts, naming the ports it may take.
func TestUpRefusesNodePorts(t *testing.T) {
	for _, base := range []int{29987, 31943} {
		c := &Cluster{Dir: t.TempDir(), BinDir: t.TempDir(), PortBase: base}
		err := c.Up(context.Background())
		if err == nil || !strings.Contains(err.Error(), "overlap the node ports") {
			t.Errorf("Up on port %d: got %v, want a refusal naming the node ports", base, err)
		}
	}
}
