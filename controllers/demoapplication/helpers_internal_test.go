/*
Copyright 2026 The demo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package demoapplication

import (
	"k8s.io/utils/ptr"

	paasv1 "github.com/cmft/demo-operator/api/v1"
	"github.com/cmft/demo-operator/internal/test/builder"
)

// The helpers the unit tests of this package share, in one home.

func testApp() *paasv1.DemoApplication {
	port := builder.Port("", 80, 8080)
	port.NodePort = ptr.To[int32](30002)
	return builder.DemoApplication("shop", "web", builder.UID("uid-1"), builder.Ports(port))
}
