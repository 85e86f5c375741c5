// Command coredns is CoreDNS with only the plugins a local cluster's DNS needs (kubernetes,
// health, ready, errors, log), built from its module so that no image or release download is
// needed. Registering fewer plugins than CoreDNS's own main keeps the build small; the
// Corefile may name only these.
package main

import (
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	coremain.Run()
}
