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

package v1_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cmft/demo-operator/internal/test/testenv"
)

// ruleCase is one CEL rule of the CRD (x-kubernetes-validations) met from both sides: a spec
// it accepts and one it refuses, at the field the refusal names.
type ruleCase struct {
	// rule is the rule's message, or its start when that starts no other message.
	rule string
	// field is the path the API server's refusal names, as in its causes; also are the other
	// paths where a rule of that message refuses the same spec (one spec meets the rule of the
	// app's container, an init container's and a sidecar's at once).
	field string
	also  []string
	// accepted and refused are spec fields, in YAML, set over the image alone.
	accepted, refused string
	// name, when set, names the refused app (the rule is on metadata.name).
	name string
	// from, when set, is the spec of an app that accepted and refused update: the rule is on
	// a transition.
	from string
}

// ruleCases holds a case for every rule of the CRD at every path that holds it:
// TestEveryRuleHasACase fails when a rule at a path has none, or a case names no rule.
var ruleCases = []ruleCase{
	{rule: "metadata.name must be at most 63 characters", field: "<nil>", accepted: `{}`, refused: `{}`, name: "2048-game"},

	// ports, the Service and per-pod Services.
	{rule: "every port needs a name when there is more than one port", field: "spec.ports",
		accepted: `ports: [{name: a, port: 80}, {name: b, port: 81}]`, refused: `ports: [{name: a, port: 80}, {port: 81}]`},
	{rule: "port names must be unique", field: "spec.ports",
		accepted: `ports: [{name: a, port: 80}, {name: b, port: 81}]`, refused: `ports: [{name: a, port: 80}, {name: a, port: 81}]`},
	{rule: "port numbers must be unique for each protocol", field: "spec.ports",
		accepted: `ports: [{name: a, port: 53}, {name: b, port: 53, protocol: UDP}]`, refused: `ports: [{name: a, port: 53}, {name: b, port: 53}]`},
	{rule: "nodePorts must be unique", field: "spec.ports",
		accepted: `ports: [{name: a, port: 80, nodePort: 30001}, {name: b, port: 81, nodePort: 30002}]`,
		refused:  `ports: [{name: a, port: 80, nodePort: 30001}, {name: b, port: 81, nodePort: 30001}]`},
	{rule: "two spec.ports reach one container port", field: "spec.ports",
		accepted: `ports: [{name: http, port: 80, targetPort: 8080}, {name: alt, port: 8080, targetPort: http}]`,
		refused:  `ports: [{name: http, port: 80, targetPort: 8080}, {name: alt, port: 8080, targetPort: metrics}]`},
	{rule: "a port name must hold a letter", field: "spec.ports[0].name",
		accepted: `ports: [{name: h8080, port: 80}]`, refused: `ports: [{name: "8080", port: 80}]`},
	{rule: "targetPort must be a number from 1 to 65535, or a name", field: "spec.ports[0].targetPort",
		accepted: `ports: [{name: a, port: 80, targetPort: 65535}, {name: b, port: 81, targetPort: http}]`, refused: `ports: [{port: 80, targetPort: "8080"}]`},
	{rule: "spec.service needs spec.ports", field: "spec.service",
		accepted: `{ports: [{port: 80}], service: {type: LoadBalancer}}`, refused: `service: {type: LoadBalancer}`},
	{rule: "spec.service.type ClusterIP cannot have a spec.ports[*].nodePort", field: "spec.service.type",
		accepted: `{ports: [{port: 80}], service: {type: ClusterIP}}`, refused: `{ports: [{port: 80, nodePort: 30080}], service: {type: ClusterIP}}`},
	{rule: "spec.service.annotations keys must be annotation keys", field: "spec.service.annotations",
		accepted: `{ports: [{port: 80}], service: {annotations: {example.com/lb: x}}}`, refused: `{ports: [{port: 80}], service: {annotations: {"bad key": x}}}`},
	{rule: "podServices needs at least one port to expose", field: "spec.podServices",
		accepted: `{ports: [{port: 80}], podServices: {enabled: true}}`, refused: `podServices: {enabled: true}`},
	{rule: "podServices.ports must name ports of spec.ports", field: "spec.podServices.ports",
		accepted: `{ports: [{name: http, port: 80}], podServices: {enabled: true, ports: [http]}}`,
		refused:  `{ports: [{name: http, port: 80}], podServices: {enabled: true, ports: [grpc]}}`},

	// Ingress and HTTPRoute.
	{rule: "ingress needs a TCP port in spec.ports to route to", field: "spec.ingress",
		accepted: `{ports: [{port: 80}], ingress: {}}`, refused: `{ports: [{port: 53, protocol: UDP}], ingress: {}}`},
	{rule: "every ingress path's port must name or number a TCP port of spec.ports", field: "spec.ingress.paths",
		accepted: `{ports: [{name: http, port: 80}], ingress: {paths: [{path: /, port: http}]}}`,
		refused:  `{ports: [{name: http, port: 80}], ingress: {paths: [{path: /, port: admin}]}}`},
	{rule: "spec.ingress.tlsSecretName needs spec.ingress.hosts", field: "spec.ingress.tlsSecretName",
		accepted: `{ports: [{port: 80}], ingress: {hosts: [shop.example.com], tlsSecretName: shop-tls}}`,
		refused:  `{ports: [{port: 80}], ingress: {tlsSecretName: shop-tls}}`},
	{rule: "ingress annotations keys must be annotation keys", field: "spec.ingress.annotations",
		accepted: `{ports: [{port: 80}], ingress: {annotations: {example.com/x: v}}}`, refused: `{ports: [{port: 80}], ingress: {annotations: {"bad key": v}}}`},
	{rule: "a host must be a lowercase DNS name", field: "spec.ingress.hosts[0]",
		accepted: `{ports: [{port: 80}], ingress: {hosts: ["*.example.com"]}}`, refused: `{ports: [{port: 80}], ingress: {hosts: [10.0.0.1]}}`},
	{rule: "path must start with '/' and hold no", field: "spec.ingress.paths[0].path",
		accepted: `{ports: [{port: 80}], ingress: {paths: [{path: /api}]}}`, refused: `{ports: [{port: 80}], ingress: {paths: [{path: /a/../b}]}}`},
	{rule: "spec.ingress and spec.httpRoute cannot both be set", field: "spec.httpRoute",
		accepted: `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}]}}`,
		refused:  `{ports: [{port: 80}], ingress: {}, httpRoute: {parentRefs: [{name: gw}]}}`},
	{rule: "spec.httpRoute needs a TCP port in spec.ports to route to", field: "spec.httpRoute",
		accepted: `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}]}}`,
		refused:  `{ports: [{port: 53, protocol: UDP}], httpRoute: {parentRefs: [{name: gw}]}}`},
	{rule: "every spec.httpRoute.paths[*].port must name or number a TCP port", field: "spec.httpRoute.paths",
		accepted: `{ports: [{name: http, port: 80}], httpRoute: {parentRefs: [{name: gw}], paths: [{path: /, port: 80}]}}`,
		refused:  `{ports: [{name: http, port: 80}], httpRoute: {parentRefs: [{name: gw}], paths: [{path: /, port: 81}]}}`},
	{rule: "a spec.httpRoute.hostnames entry must be a lowercase DNS name", field: "spec.httpRoute.hostnames[0]",
		accepted: `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}], hostnames: [shop.example.com]}}`,
		refused:  `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}], hostnames: [10.0.0.1]}}`},
	{rule: "spec.httpRoute.parentRefs must be unique", field: "spec.httpRoute.parentRefs",
		accepted: `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}, {name: gw, namespace: infra}]}}`,
		refused:  `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}, {name: gw}]}}`},
	{rule: "spec.httpRoute.parentRefs naming one Gateway twice must each name a sectionName", field: "spec.httpRoute.parentRefs",
		accepted: `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw, sectionName: a}, {name: gw, sectionName: b}]}}`,
		refused:  `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw, sectionName: a}, {name: gw}]}}`},
	{rule: "a spec.httpRoute.paths[*].path must start with '/'", field: "spec.httpRoute.paths[0].path",
		accepted: `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}], paths: [{path: /api}]}}`,
		refused:  `{ports: [{port: 80}], httpRoute: {parentRefs: [{name: gw}], paths: [{path: api}]}}`},
	{rule: "a spec.networkPolicy.from peer needs a namespaceSelector, a podSelector or both", field: "spec.networkPolicy.from[0]",
		accepted: `networkPolicy: {from: [{podSelector: {}}]}`, refused: `networkPolicy: {from: [{}]}`},
	{rule: "operator In and NotIn need values; Exists and DoesNotExist take none", field: "spec.networkPolicy.from[0].podSelector.matchExpressions[0]",
		also:     []string{"spec.networkPolicy.from[0].namespaceSelector.matchExpressions[0]"},
		accepted: peerSelectors(`{matchExpressions: [{key: app, operator: In, values: [web]}]}`),
		refused:  peerSelectors(`{matchExpressions: [{key: app, operator: In}]}`)},
	{rule: "key must be a label key", field: "spec.networkPolicy.from[0].podSelector.matchExpressions[0].key",
		also:     []string{"spec.networkPolicy.from[0].namespaceSelector.matchExpressions[0].key"},
		accepted: peerSelectors(`{matchExpressions: [{key: example.com/app, operator: Exists}]}`),
		refused:  peerSelectors(`{matchExpressions: [{key: a/b/c, operator: Exists}]}`)},
	{rule: "matchLabels keys must be label keys", field: "spec.networkPolicy.from[0].podSelector.matchLabels",
		also:     []string{"spec.networkPolicy.from[0].namespaceSelector.matchLabels"},
		accepted: peerSelectors(`{matchLabels: {example.com/app: web}}`), refused: peerSelectors(`{matchLabels: {a/b/c: web}}`)},

	// Scaling and the disruption budget.
	{rule: "autoscaling on CPU needs resources.requests.cpu", field: "spec.autoscaling.targetCPUUtilizationPercentage",
		accepted: `{resources: {requests: {cpu: 100m}}, autoscaling: {maxReplicas: 3, targetCPUUtilizationPercentage: 80}}`,
		refused:  `{resources: {requests: {cpu: "0"}}, autoscaling: {maxReplicas: 3, targetCPUUtilizationPercentage: 80}}`},
	{rule: "autoscaling on memory needs resources.requests.memory", field: "spec.autoscaling.targetMemoryUtilizationPercentage",
		accepted: `{resources: {requests: {memory: 64Mi}}, autoscaling: {maxReplicas: 3, targetMemoryUtilizationPercentage: 80}}`,
		refused:  `autoscaling: {maxReplicas: 3, targetMemoryUtilizationPercentage: 80}`},
	{rule: "minReplicas must not exceed maxReplicas", field: "spec.autoscaling",
		accepted: `{resources: {requests: {cpu: 100m}}, autoscaling: {minReplicas: 2, maxReplicas: 2, targetCPUUtilizationPercentage: 80}}`,
		refused:  `{resources: {requests: {cpu: 100m}}, autoscaling: {minReplicas: 5, maxReplicas: 2, targetCPUUtilizationPercentage: 80}}`},
	{rule: "autoscaling needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage", field: "spec.autoscaling",
		accepted: `{resources: {requests: {cpu: 100m}}, autoscaling: {maxReplicas: 3, targetCPUUtilizationPercentage: 80}}`, refused: `autoscaling: {maxReplicas: 3}`},
	{rule: "spec.disruptionBudget.minAvailable must leave at least one pod free", field: "spec.disruptionBudget.minAvailable",
		accepted: `{replica: 3, disruptionBudget: {minAvailable: 2}}`, refused: `{replica: 2, disruptionBudget: {minAvailable: 2}}`},
	{rule: "spec.disruptionBudget takes exactly one of minAvailable and maxUnavailable", field: "spec.disruptionBudget",
		accepted: `{replica: 3, disruptionBudget: {maxUnavailable: 1}}`, refused: `{replica: 3, disruptionBudget: {minAvailable: 1, maxUnavailable: 1}}`},
	{rule: "spec.disruptionBudget.maxUnavailable must be a number of pods", field: "spec.disruptionBudget.maxUnavailable",
		accepted: `{replica: 3, disruptionBudget: {maxUnavailable: 100%}}`, refused: `{replica: 3, disruptionBudget: {maxUnavailable: 120%}}`},
	{rule: "spec.disruptionBudget.maxUnavailable cannot be 0 or 0%", field: "spec.disruptionBudget.maxUnavailable",
		accepted: `{replica: 3, disruptionBudget: {maxUnavailable: 10%}}`, refused: `{replica: 3, disruptionBudget: {maxUnavailable: 0%}}`},
	{rule: "spec.disruptionBudget.minAvailable must be a number of pods", field: "spec.disruptionBudget.minAvailable",
		accepted: `{replica: 3, disruptionBudget: {minAvailable: 0}}`, refused: `{replica: 3, disruptionBudget: {minAvailable: -1}}`},
	{rule: "spec.disruptionBudget.minAvailable cannot be 100%", field: "spec.disruptionBudget.minAvailable",
		accepted: `{replica: 3, disruptionBudget: {minAvailable: 50%}}`, refused: `{replica: 3, disruptionBudget: {minAvailable: 100%}}`},

	// The app's container: image, env, resources, probes, lifecycle.
	{rule: "image must not have leading or trailing spaces", field: "spec.image", also: []string{"spec.initContainers[0].image", "spec.sidecars[0].image"},
		accepted: `{image: nginx:1.27, initContainers: [{name: migrate, image: m}], sidecars: [{name: proxy, image: p}]}`,
		refused:  `{image: "nginx:1.27 ", initContainers: [{name: migrate, image: "m "}], sidecars: [{name: proxy, image: " p"}]}`},
	{rule: "value and valueFrom cannot both be set", field: "spec.env[0]", also: inEveryContainer("env[0]"),
		accepted: `{` + everyContainer(`env: [{name: A, value: "1"}]`) + `}`,
		refused:  `{` + everyContainer(`env: [{name: A, value: "1", valueFrom: {fieldRef: {fieldPath: metadata.name}}}]`) + `}`},
	{rule: "valueFrom takes exactly one of", field: "spec.env[0].valueFrom", also: inEveryContainer("env[0].valueFrom"),
		accepted: `{` + everyContainer(`env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]`) + `}`,
		refused:  `{` + everyContainer(`env: [{name: A, valueFrom: {}}]`) + `}`},
	{rule: "a key must not be '.' nor start with '..'", field: "spec.env[0].valueFrom.configMapKeyRef.key",
		also: append([]string{"spec.env[1].valueFrom.secretKeyRef.key"},
			append(inEveryContainer("env[0].valueFrom.configMapKeyRef.key"), inEveryContainer("env[1].valueFrom.secretKeyRef.key")...)...),
		accepted: `{` + everyContainer(`env: [{name: A, valueFrom: {configMapKeyRef: {name: c, key: .k}}}, {name: B, valueFrom: {secretKeyRef: {name: s, key: .k}}}]`) + `}`,
		refused:  `{` + everyContainer(`env: [{name: A, valueFrom: {configMapKeyRef: {name: c, key: ..k}}}, {name: B, valueFrom: {secretKeyRef: {name: s, key: ..k}}}]`) + `}`},
	{rule: "fieldPath must be metadata.name", field: "spec.env[0].valueFrom.fieldRef.fieldPath", also: inEveryContainer("env[0].valueFrom.fieldRef.fieldPath"),
		accepted: `{` + everyContainer(`env: [{name: A, valueFrom: {fieldRef: {fieldPath: "metadata.labels['team']"}}}]`) + `}`,
		refused:  `{` + everyContainer(`env: [{name: A, valueFrom: {fieldRef: {fieldPath: status.phase}}}]`) + `}`},
	{rule: "divisor must be 1m or 1 for cpu", field: "spec.env[0].valueFrom.resourceFieldRef.divisor", also: inEveryContainer("env[0].valueFrom.resourceFieldRef.divisor"),
		accepted: `{` + everyContainer(`env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}]`) + `}`,
		refused:  `{` + everyContainer(`env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1Mi}}}]`) + `}`},
	{rule: "envFrom takes exactly one of configMapRef and secretRef", field: "spec.envFrom[0]", also: inEveryContainer("envFrom[0]"),
		accepted: `{` + everyContainer(`envFrom: [{configMapRef: {name: a}}]`) + `}`,
		refused:  `{` + everyContainer(`envFrom: [{configMapRef: {name: a}, secretRef: {name: b}}]`) + `}`},
	{rule: "resources may name cpu, memory, ephemeral-storage and domain-qualified", field: "spec.resources",
		accepted: `resources: {limits: {example.com/gpu: "1"}, requests: {example.com/gpu: "1"}}`, refused: `resources: {limits: {gpu: "1"}}`},
	{rule: "resource quantities must not be negative", field: "spec.resources",
		accepted: `resources: {requests: {memory: "0"}}`, refused: `resources: {requests: {memory: "-1"}}`},
	{rule: "a resource's request must not exceed its limit", field: "spec.resources",
		accepted: `resources: {requests: {cpu: 500m}, limits: {cpu: 500m}}`, refused: `resources: {requests: {cpu: "2"}, limits: {cpu: 500m}}`},
	{rule: "an extended resource must be a whole number, limited", field: "spec.resources",
		accepted: `resources: {requests: {example.com/gpu: "1"}, limits: {example.com/gpu: "1"}}`, refused: `resources: {requests: {example.com/gpu: "1"}}`},
	{rule: "a probe takes exactly one of httpGet, tcpSocket, grpc and exec", field: "spec.readinessProbe", also: inAppAndSidecar("readinessProbe", "livenessProbe", "startupProbe")[1:],
		accepted: appAndSidecarProbes(`{exec: {command: ["true"]}}`), refused: appAndSidecarProbes(`{periodSeconds: 5}`)},
	{rule: "port must be a number from 1 to 65535, or a name", field: "spec.readinessProbe.httpGet.port",
		also:     inAppAndSidecar("readinessProbe.httpGet.port", "livenessProbe.httpGet.port", "startupProbe.httpGet.port")[1:],
		accepted: appAndSidecarProbes(`{httpGet: {port: 65535}}`), refused: appAndSidecarProbes(`{httpGet: {port: 0}}`)},
	{rule: "port must be a number from 1 to 65535, or a name", field: "spec.readinessProbe.tcpSocket.port",
		also:     inAppAndSidecar("readinessProbe.tcpSocket.port", "livenessProbe.tcpSocket.port", "startupProbe.tcpSocket.port")[1:],
		accepted: appAndSidecarProbes(`{tcpSocket: {port: 1}}`), refused: appAndSidecarProbes(`{tcpSocket: {port: 0}}`)},
	{rule: "spec.readinessProbe's httpGet or tcpSocket port names no container port", field: "spec.readinessProbe",
		accepted: `{ports: [{name: http, port: 80, targetPort: web}], readinessProbe: {httpGet: {port: web}}}`,
		refused:  `{ports: [{name: http, port: 80, targetPort: web}], readinessProbe: {httpGet: {port: http}}}`},
	{rule: "spec.livenessProbe's httpGet or tcpSocket port names no container port", field: "spec.livenessProbe",
		accepted: `{ports: [{name: http, port: 80}], livenessProbe: {tcpSocket: {port: http}}}`,
		refused:  `{ports: [{name: http, port: 80}], livenessProbe: {tcpSocket: {port: metrics}}}`},
	{rule: "spec.startupProbe's httpGet or tcpSocket port names no container port", field: "spec.startupProbe",
		accepted: `startupProbe: {tcpSocket: {port: 8080}}`, refused: `startupProbe: {tcpSocket: {port: http}}`},
	{rule: "a livenessProbe's successThreshold must be 1", field: "spec.livenessProbe.successThreshold", also: []string{"spec.sidecars[0].livenessProbe.successThreshold"},
		accepted: `{` + appAndSidecar(`livenessProbe: {tcpSocket: {port: 80}, successThreshold: 1}`) + `}`,
		refused:  `{` + appAndSidecar(`livenessProbe: {tcpSocket: {port: 80}, successThreshold: 2}`) + `}`},
	{rule: "a startupProbe's successThreshold must be 1", field: "spec.startupProbe.successThreshold", also: []string{"spec.sidecars[0].startupProbe.successThreshold"},
		accepted: `{` + appAndSidecar(`startupProbe: {tcpSocket: {port: 80}, successThreshold: 1}`) + `}`,
		refused:  `{` + appAndSidecar(`startupProbe: {tcpSocket: {port: 80}, successThreshold: 2}`) + `}`},
	{rule: "spec.lifecycle.preStop takes exactly one of sleep and exec", field: "spec.lifecycle.preStop",
		accepted: `lifecycle: {preStop: {exec: {command: [sh]}}}`, refused: `lifecycle: {preStop: {}}`},
	{rule: "spec.terminationGracePeriodSeconds (30 when unset) must exceed", field: "spec.lifecycle.preStop.sleep.seconds",
		accepted: `lifecycle: {preStop: {sleep: {seconds: 29}}}`, refused: `lifecycle: {preStop: {sleep: {seconds: 30}}}`},
	{rule: "spec.replica cannot change while spec.autoscaling is set", field: "spec.replica",
		from:     `{replica: 2, ` + cpuAutoscaling + `}`,
		accepted: `{replica: 3, resources: {requests: {cpu: 100m}}}`,
		refused:  `{replica: 3, ` + cpuAutoscaling + `}`},
	{rule: "spec.minReadySeconds must be less than the Deployment's spec.progressDeadlineSeconds", field: "spec.minReadySeconds",
		accepted: `minReadySeconds: 599`, refused: `minReadySeconds: 600`},

	// Volumes and mounts.
	{rule: "every spec.volumeMounts[*].name must name a volume of spec.volumes", field: "spec.volumeMounts",
		accepted: `{volumes: [{name: tmp, emptyDir: {}}], volumeMounts: [{name: tmp, mountPath: /tmp}]}`, refused: `volumeMounts: [{name: tmp, mountPath: /tmp}]`},
	{rule: "mountPath must be an absolute path, without ':'", field: "spec.volumeMounts[0].mountPath", also: inEveryContainer("volumeMounts[0].mountPath"),
		accepted: `{volumes: [{name: tmp, emptyDir: {}}], ` + everyContainer(`volumeMounts: [{name: tmp, mountPath: /tmp}]`) + `}`,
		refused:  `{volumes: [{name: tmp, emptyDir: {}}], ` + everyContainer(`volumeMounts: [{name: tmp, mountPath: tmp}]`) + `}`},
	{rule: "subPath must be relative, without '..'", field: "spec.volumeMounts[0].subPath", also: inEveryContainer("volumeMounts[0].subPath"),
		accepted: `{volumes: [{name: tmp, emptyDir: {}}], ` + everyContainer(`volumeMounts: [{name: tmp, mountPath: /tmp, subPath: a/b}]`) + `}`,
		refused:  `{volumes: [{name: tmp, emptyDir: {}}], ` + everyContainer(`volumeMounts: [{name: tmp, mountPath: /tmp, subPath: ../b}]`) + `}`},
	{rule: "a volume takes exactly one of configMap, secret, emptyDir and persistentVolumeClaim", field: "spec.volumes[0]",
		accepted: `volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]`,
		refused:  `volumes: [{name: data, emptyDir: {}, persistentVolumeClaim: {claimName: data}}]`},
	{rule: "path must be relative, without '..'", field: "spec.volumes[0].configMap.items[0].path", also: []string{"spec.volumes[1].secret.items[0].path"},
		accepted: `volumes: [{name: c, configMap: {name: app, items: [{key: k, path: conf/k}]}}, {name: s, secret: {secretName: s, items: [{key: k, path: k}]}}]`,
		refused:  `volumes: [{name: c, configMap: {name: app, items: [{key: k, path: ../k}]}}, {name: s, secret: {secretName: s, items: [{key: k, path: a/../../k}]}}]`},
	{rule: "sizeLimit must not be negative", field: "spec.volumes[0].emptyDir.sizeLimit",
		accepted: `volumes: [{name: t, emptyDir: {sizeLimit: 1Gi}}]`, refused: `volumes: [{name: t, emptyDir: {sizeLimit: -1Gi}}]`},

	// Security.
	{rule: "spec.securityContext over spec.podSecurityContext", field: "spec.securityContext",
		accepted: `{podSecurityContext: {runAsNonRoot: true}, securityContext: {runAsUser: 1000}}`,
		refused:  `{podSecurityContext: {runAsNonRoot: true}, securityContext: {runAsUser: 0}}`},
	{rule: "runAsNonRoot cannot hold with runAsUser 0: the container could never start", field: "spec.securityContext", also: inEveryContainer("securityContext"),
		accepted: `{` + everyContainer(`securityContext: {runAsNonRoot: true, runAsUser: 1000}`) + `}`,
		refused:  `{` + everyContainer(`securityContext: {runAsNonRoot: true, runAsUser: 0}`) + `}`},
	{rule: "runAsNonRoot cannot hold with runAsUser 0: the pods could never start", field: "spec.podSecurityContext",
		accepted: `podSecurityContext: {runAsNonRoot: false, runAsUser: 0}`, refused: `podSecurityContext: {runAsNonRoot: true, runAsUser: 0}`},
	{rule: "capabilities.add may hold NET_BIND_SERVICE alone", field: "spec.securityContext.capabilities.add", also: inEveryContainer("securityContext.capabilities.add"),
		accepted: `{` + everyContainer(`securityContext: {capabilities: {add: [NET_BIND_SERVICE]}}`) + `}`,
		refused:  `{` + everyContainer(`securityContext: {capabilities: {add: [NET_ADMIN]}}`) + `}`},
	{rule: "localhostProfile is set exactly when type is Localhost", field: "spec.podSecurityContext.seccompProfile",
		also:     append([]string{"spec.securityContext.seccompProfile"}, inEveryContainer("securityContext.seccompProfile")...),
		accepted: seccompEverywhere(`{type: Localhost, localhostProfile: profiles/app.json}`), refused: seccompEverywhere(`{type: Localhost}`)},
	{rule: "localhostProfile must be a relative path without '..'", field: "spec.podSecurityContext.seccompProfile.localhostProfile",
		also:     append([]string{"spec.securityContext.seccompProfile.localhostProfile"}, inEveryContainer("securityContext.seccompProfile.localhostProfile")...),
		accepted: seccompEverywhere(`{type: Localhost, localhostProfile: profiles/app.json}`), refused: seccompEverywhere(`{type: Localhost, localhostProfile: ../app.json}`)},

	// Pod metadata and scheduling.
	{rule: "podLabels keys must be label keys", field: "spec.podLabels",
		accepted: `podLabels: {example.com/team: shop}`, refused: `podLabels: {a/b/c: shop}`},
	{rule: "podLabels cannot set app.kubernetes.io/name", field: "spec.podLabels",
		accepted: `podLabels: {app.kubernetes.io/part-of: shop}`, refused: `podLabels: {app.kubernetes.io/name: shop}`},
	{rule: "podAnnotations keys must be annotation keys", field: "spec.podAnnotations",
		accepted: `podAnnotations: {example.com/team: shop}`, refused: `podAnnotations: {"bad key": shop}`},
	{rule: "podAnnotations cannot set AppArmor or seccomp annotations", field: "spec.podAnnotations",
		accepted: `podAnnotations: {example.com/seccomp: x}`, refused: `podAnnotations: {seccomp.security.alpha.kubernetes.io/pod: runtime/default}`},
	{rule: "nodeSelector keys must be label keys", field: "spec.nodeSelector",
		accepted: `nodeSelector: {kubernetes.io/os: linux}`, refused: `nodeSelector: {a/b/c: linux}`},
	{rule: "spec.priorityClassName cannot name a system- PriorityClass", field: "spec.priorityClassName",
		accepted: `priorityClassName: high`, refused: `priorityClassName: system-cluster-critical`},
	{rule: "every toleration needs a key", field: "spec.tolerations",
		accepted: `tolerations: [{key: dedicated, operator: Exists}]`, refused: `tolerations: [{operator: Exists}]`},
	{rule: "tolerations cannot tolerate the control plane's taints", field: "spec.tolerations",
		accepted: `tolerations: [{key: dedicated, operator: Exists}]`, refused: `tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]`},
	{rule: "a toleration with operator Exists takes no value", field: "spec.tolerations[0]",
		accepted: `tolerations: [{key: k, value: v}]`, refused: `tolerations: [{key: k, operator: Exists, value: v}]`},
	{rule: "key must be a label key", field: "spec.tolerations[0].key",
		accepted: `tolerations: [{key: example.com/dedicated, operator: Exists}]`, refused: `tolerations: [{key: a/b/c, operator: Exists}]`},
	{rule: "tolerationSeconds goes with effect NoExecute only", field: "spec.tolerations[0]",
		accepted: `tolerations: [{key: k, effect: NoExecute, tolerationSeconds: 60}]`, refused: `tolerations: [{key: k, effect: NoSchedule, tolerationSeconds: 60}]`},
	{rule: "minDomains goes with whenUnsatisfiable DoNotSchedule only", field: "spec.topologySpreadConstraints[0]",
		accepted: `topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, minDomains: 2}]`,
		refused:  `topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}]`},
	{rule: "topologyKey must be a label key", field: "spec.topologySpreadConstraints[0].topologyKey",
		accepted: `topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]`,
		refused:  `topologySpreadConstraints: [{maxSkew: 1, topologyKey: a/b/c, whenUnsatisfiable: DoNotSchedule}]`},
	{rule: "topologyKey must be a label key", field: "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
		also:     []string{"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey"},
		accepted: podAntiAffinity(`kubernetes.io/hostname`), refused: podAntiAffinity(`a/b/c`)},
	{rule: "operator In and NotIn need values", field: nodeTerm, also: []string{preferredNodeTerm},
		accepted: nodeAffinity(`{key: disk, operator: In, values: [ssd]}`), refused: nodeAffinity(`{key: disk, operator: In}`)},
	{rule: "operator Exists and DoesNotExist take no values", field: nodeTerm, also: []string{preferredNodeTerm},
		accepted: nodeAffinity(`{key: disk, operator: Exists}`), refused: nodeAffinity(`{key: disk, operator: Exists, values: [ssd]}`)},
	{rule: "operator Gt and Lt take one value, a whole number", field: nodeTerm, also: []string{preferredNodeTerm},
		accepted: nodeAffinity(`{key: cores, operator: Gt, values: ["4"]}`), refused: nodeAffinity(`{key: cores, operator: Gt, values: [many]}`)},
	{rule: "key must be a label key", field: nodeTerm + ".key", also: []string{preferredNodeTerm + ".key"},
		accepted: nodeAffinity(`{key: example.com/disk, operator: Exists}`), refused: nodeAffinity(`{key: a/b/c, operator: Exists}`)},

	// Rollout.
	{rule: "rollingUpdate goes with type RollingUpdate only", field: "spec.strategy.rollingUpdate",
		accepted: `strategy: {type: Recreate}`, refused: `strategy: {type: Recreate, rollingUpdate: {maxSurge: 1}}`},
	{rule: "maxUnavailable and maxSurge cannot both be 0", field: "spec.strategy.rollingUpdate",
		accepted: `strategy: {rollingUpdate: {maxUnavailable: 0%, maxSurge: 1}}`, refused: `strategy: {rollingUpdate: {maxUnavailable: 0%, maxSurge: 0}}`},
	{rule: "maxSurge must be a number of pods (0 or more) or a percentage", field: "spec.strategy.rollingUpdate.maxSurge",
		accepted: `strategy: {rollingUpdate: {maxSurge: 200%}}`, refused: `strategy: {rollingUpdate: {maxSurge: one}}`},
	{rule: "maxUnavailable must be a number of pods (0 or more) or a percentage up to 100%", field: "spec.strategy.rollingUpdate.maxUnavailable",
		accepted: `strategy: {rollingUpdate: {maxUnavailable: 100%}}`, refused: `strategy: {rollingUpdate: {maxUnavailable: 120%}}`},

	// Init containers and sidecars.
	{rule: "the names of spec.initContainers and spec.sidecars must be unique", field: "spec.sidecars",
		accepted: `{initContainers: [{name: migrate, image: m}], sidecars: [{name: proxy, image: p}]}`,
		refused:  `{initContainers: [{name: proxy, image: m}], sidecars: [{name: proxy, image: p}]}`},
	{rule: "a container's name cannot be app", field: "spec.initContainers[0].name", also: []string{"spec.sidecars[0].name"},
		accepted: `{initContainers: [{name: migrate, image: m}], sidecars: [{name: proxy, image: p}]}`,
		refused:  `{initContainers: [{name: app, image: m}], sidecars: [{name: app, image: p}]}`},
	{rule: "every spec.initContainers[*].volumeMounts[*].name must name a volume", field: "spec.initContainers",
		accepted: `{volumes: [{name: tmp, emptyDir: {}}], initContainers: [{name: migrate, image: m, volumeMounts: [{name: tmp, mountPath: /tmp}]}]}`,
		refused:  `{volumes: [{name: tmp, emptyDir: {}}], initContainers: [{name: migrate, image: m, volumeMounts: [{name: data, mountPath: /tmp}]}]}`},
	{rule: "every spec.sidecars[*].volumeMounts[*].name must name a volume", field: "spec.sidecars",
		accepted: `{volumes: [{name: tmp, emptyDir: {}}], ` + sidecar(`volumeMounts: [{name: tmp, mountPath: /tmp}]`) + `}`,
		refused:  sidecar(`volumeMounts: [{name: tmp, mountPath: /tmp}]`)},
	{rule: "a spec.initContainers[*].securityContext over spec.podSecurityContext", field: "spec.initContainers",
		accepted: `{podSecurityContext: {runAsNonRoot: true}, initContainers: [{name: migrate, image: m, securityContext: {runAsUser: 1000}}]}`,
		refused:  `{podSecurityContext: {runAsNonRoot: true}, initContainers: [{name: migrate, image: m, securityContext: {runAsUser: 0}}]}`},
	{rule: "a spec.sidecars[*].securityContext over spec.podSecurityContext", field: "spec.sidecars",
		accepted: `{podSecurityContext: {runAsUser: 0}, ` + sidecar(`securityContext: {runAsUser: 1000, runAsNonRoot: true}`) + `}`,
		refused:  `{podSecurityContext: {runAsUser: 0}, ` + sidecar(`securityContext: {runAsNonRoot: true}`) + `}`},
	{rule: "requests.cpu must not exceed limits.cpu", field: "spec.initContainers[0].resources", also: []string{"spec.sidecars[0].resources"},
		accepted: initAndSidecarResources(`{requests: {cpu: "1"}, limits: {cpu: "1"}}`), refused: initAndSidecarResources(`{requests: {cpu: "2"}, limits: {cpu: "1"}}`)},
	{rule: "requests.memory must not exceed limits.memory", field: "spec.initContainers[0].resources", also: []string{"spec.sidecars[0].resources"},
		accepted: initAndSidecarResources(`{requests: {memory: 1Gi}, limits: {memory: 1Gi}}`), refused: initAndSidecarResources(`{requests: {memory: 2Gi}, limits: {memory: 1Gi}}`)},
	{rule: "requests.ephemeral-storage must not exceed limits.ephemeral-storage", field: "spec.initContainers[0].resources", also: []string{"spec.sidecars[0].resources"},
		accepted: initAndSidecarResources(`{requests: {ephemeral-storage: 1Gi}, limits: {ephemeral-storage: 1Gi}}`),
		refused:  initAndSidecarResources(`{requests: {ephemeral-storage: 2Gi}, limits: {ephemeral-storage: 1Gi}}`)},
	{rule: "cpu must not be negative", field: "spec.initContainers[0].resources.requests.cpu",
		also:     []string{"spec.initContainers[0].resources.limits.cpu", "spec.sidecars[0].resources.requests.cpu", "spec.sidecars[0].resources.limits.cpu"},
		accepted: initAndSidecarResources(`{requests: {cpu: "0"}, limits: {cpu: "0"}}`), refused: initAndSidecarResources(`{requests: {cpu: "-1"}, limits: {cpu: "-1"}}`)},
	{rule: "memory must not be negative", field: "spec.initContainers[0].resources.requests.memory",
		also:     []string{"spec.initContainers[0].resources.limits.memory", "spec.sidecars[0].resources.requests.memory", "spec.sidecars[0].resources.limits.memory"},
		accepted: initAndSidecarResources(`{requests: {memory: "0"}, limits: {memory: "0"}}`), refused: initAndSidecarResources(`{requests: {memory: "-1"}, limits: {memory: "-1"}}`)},
	{rule: "ephemeral-storage must not be negative", field: "spec.initContainers[0].resources.requests.ephemeral-storage",
		also:     []string{"spec.initContainers[0].resources.limits.ephemeral-storage", "spec.sidecars[0].resources.requests.ephemeral-storage", "spec.sidecars[0].resources.limits.ephemeral-storage"},
		accepted: initAndSidecarResources(`{requests: {ephemeral-storage: "0"}, limits: {ephemeral-storage: "0"}}`), refused: initAndSidecarResources(`{requests: {ephemeral-storage: "-1"}, limits: {ephemeral-storage: "-1"}}`)},
	{rule: "a sidecar's readinessProbe must give its port by number", field: "spec.sidecars[0].readinessProbe",
		accepted: sidecar(`readinessProbe: {httpGet: {port: 9090}}`), refused: sidecar(`readinessProbe: {httpGet: {port: admin}}`)},
	{rule: "a sidecar's livenessProbe must give its port by number", field: "spec.sidecars[0].livenessProbe",
		accepted: sidecar(`livenessProbe: {tcpSocket: {port: 9090}}`), refused: sidecar(`livenessProbe: {tcpSocket: {port: admin}}`)},
	{rule: "a sidecar's startupProbe must give its port by number", field: "spec.sidecars[0].startupProbe",
		accepted: sidecar(`startupProbe: {tcpSocket: {port: 9090}}`), refused: sidecar(`startupProbe: {tcpSocket: {port: admin}}`)},

	// The workload and a StatefulSet's settings.
	{rule: "spec.workload cannot change", field: "spec.workload",
		from: `{}`, accepted: `{workload: Deployment, replica: 2}`, refused: `workload: StatefulSet`},
	{rule: "metadata.name must be at most 52 characters for a StatefulSet app", field: "<nil>",
		accepted: `workload: StatefulSet`, refused: `workload: StatefulSet`, name: strings.Repeat("s", 53)},
	{rule: "spec.statefulSet goes with spec.workload StatefulSet", field: "spec.statefulSet",
		accepted: `{workload: StatefulSet, statefulSet: {partition: 1}}`, refused: `statefulSet: {partition: 1}`},
	{rule: "spec.strategy is a Deployment's", field: "spec.strategy",
		accepted: `{workload: Deployment, strategy: {type: Recreate}}`, refused: `{workload: StatefulSet, strategy: {type: Recreate}}`},
	{rule: "every spec.statefulSet.volumeClaimTemplates[*].name must differ from the names of spec.volumes", field: "spec.statefulSet.volumeClaimTemplates",
		accepted: `{volumes: [{name: tmp, emptyDir: {}}], ` + claims(`{name: data, mountPath: /data, size: 1Gi}`) + `}`,
		refused:  `{volumes: [{name: data, emptyDir: {}}], ` + claims(`{name: data, mountPath: /data, size: 1Gi}`) + `}`},
	{rule: "every spec.statefulSet.volumeClaimTemplates[*].mountPath must differ from those of spec.volumeMounts", field: "spec.statefulSet.volumeClaimTemplates",
		accepted: `{volumes: [{name: tmp, emptyDir: {}}], volumeMounts: [{name: tmp, mountPath: /tmp}], ` + claims(`{name: data, mountPath: /data, size: 1Gi}`) + `}`,
		refused:  `{volumes: [{name: tmp, emptyDir: {}}], volumeMounts: [{name: tmp, mountPath: /tmp}], ` + claims(`{name: data, mountPath: /tmp, size: 1Gi}`) + `}`},
	{rule: "spec.statefulSet.volumeClaimTemplates[*].mountPath must be unique", field: "spec.statefulSet.volumeClaimTemplates",
		accepted: `{` + claims(`{name: a, mountPath: /a, size: 1Gi}, {name: b, mountPath: /b, size: 1Gi}`) + `}`,
		refused:  `{` + claims(`{name: a, mountPath: /a, size: 1Gi}, {name: b, mountPath: /a, size: 1Gi}`) + `}`},
	{rule: "mountPath must be an absolute path, without ':'", field: "spec.statefulSet.volumeClaimTemplates[0].mountPath",
		accepted: `{` + claims(`{name: data, mountPath: /data, size: 1Gi}`) + `}`, refused: `{` + claims(`{name: data, mountPath: data, size: 1Gi}`) + `}`},
	{rule: "size must be above 0", field: "spec.statefulSet.volumeClaimTemplates[0].size",
		accepted: `{` + claims(`{name: data, mountPath: /data, size: 1}`) + `}`, refused: `{` + claims(`{name: data, mountPath: /data, size: "0"}`) + `}`},
	{rule: "storageClassName must be empty or a StorageClass's name", field: "spec.statefulSet.volumeClaimTemplates[0].storageClassName",
		accepted: `{` + claims(`{name: a, mountPath: /a, size: 1Gi, storageClassName: ""}, {name: b, mountPath: /b, size: 1Gi, storageClassName: fast.ssd}`) + `}`,
		refused:  `{` + claims(`{name: data, mountPath: /data, size: 1Gi, storageClassName: Fast_SSD}`) + `}`},
	{rule: "accessModes ReadWriteOncePod goes alone", field: "spec.statefulSet.volumeClaimTemplates[0].accessModes",
		accepted: `{` + claims(`{name: data, mountPath: /data, size: 1Gi, accessModes: [ReadWriteOncePod]}`) + `}`,
		refused:  `{` + claims(`{name: data, mountPath: /data, size: 1Gi, accessModes: [ReadWriteOncePod, ReadWriteOnce]}`) + `}`},
	{rule: "spec.statefulSet.volumeClaimTemplates cannot change", field: "spec.statefulSet.volumeClaimTemplates",
		from:     `{` + claims(`{name: data, mountPath: /data, size: 1Gi}`) + `}`,
		accepted: `{replica: 3, ` + claims(`{name: data, mountPath: /data, size: 1Gi}`) + `}`,
		refused:  `{` + claims(`{name: data, mountPath: /data, size: 2Gi}`) + `}`},
	{rule: "spec.statefulSet.volumeClaimTemplates cannot change", field: "spec.statefulSet.volumeClaimTemplates",
		from:     `{workload: StatefulSet, statefulSet: {partition: 1}}`,
		accepted: `{workload: StatefulSet, statefulSet: {partition: 0}}`,
		refused:  `{workload: StatefulSet, statefulSet: {partition: 1, volumeClaimTemplates: [{name: data, mountPath: /data, size: 1Gi}]}}`},
	{rule: "spec.statefulSet.volumeClaimTemplates cannot change", field: "spec.statefulSet.volumeClaimTemplates",
		from:     `workload: StatefulSet`,
		accepted: `{workload: StatefulSet, statefulSet: {partition: 1}}`,
		refused:  `{` + claims(`{name: data, mountPath: /data, size: 1Gi}`) + `}`},
	{rule: "spec.statefulSet.podManagementPolicy cannot change", field: "spec.statefulSet.podManagementPolicy",
		from:     `{workload: StatefulSet, statefulSet: {podManagementPolicy: Parallel}}`,
		accepted: `{workload: StatefulSet, statefulSet: {podManagementPolicy: Parallel, partition: 1}}`,
		refused:  `{workload: StatefulSet, statefulSet: {podManagementPolicy: OrderedReady}}`},
	{rule: "spec.statefulSet.podManagementPolicy cannot change", field: "spec.statefulSet.podManagementPolicy",
		from:     `{workload: StatefulSet, statefulSet: {podManagementPolicy: Parallel}}`,
		accepted: `{workload: StatefulSet, statefulSet: {podManagementPolicy: Parallel, partition: 1}}`,
		refused:  `workload: StatefulSet`},
}

// claims is spec fields: a StatefulSet app whose pods claim the volumes of templates.
func claims(templates string) string {
	return `workload: StatefulSet, statefulSet: {volumeClaimTemplates: [` + templates + `]}`
}

// cpuAutoscaling is spec fields that turn autoscaling on, on CPU, with the request it needs.
const cpuAutoscaling = `resources: {requests: {cpu: 100m}}, autoscaling: {maxReplicas: 5, targetCPUUtilizationPercentage: 80}`

// nodeTerm and preferredNodeTerm are the paths of the one requirement nodeAffinity sets.
const (
	nodeTerm          = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
	preferredNodeTerm = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0]"
)

// nodeAffinity is a spec whose required node affinity and preferred one hold the requirement.
func nodeAffinity(requirement string) string {
	return `affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [` + requirement + `]}]}, ` +
		`preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [` + requirement + `]}}]}}`
}

// podAntiAffinity is a spec whose required pod anti-affinity and preferred one spread over the
// topologyKey.
func podAntiAffinity(topologyKey string) string {
	return `affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: ` + topologyKey + `}], ` +
		`preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, podAffinityTerm: {topologyKey: ` + topologyKey + `}}]}}`
}

// peerSelectors is a spec whose network policy lets in one peer, selected by this pod selector
// and this namespace selector.
func peerSelectors(selector string) string {
	return `networkPolicy: {from: [{podSelector: ` + selector + `, namespaceSelector: ` + selector + `}]}`
}

// initAndSidecarResources is a spec with one init container and one sidecar of these resources.
func initAndSidecarResources(resources string) string {
	return `{initContainers: [{name: migrate, image: m, resources: ` + resources + `}], ` + sidecar(`resources: `+resources) + `}`
}

// sidecar is a spec field: one sidecar of these fields.
func sidecar(fields string) string {
	return `sidecars: [{name: proxy, image: p, ` + fields + `}]`
}

// everyContainer is spec fields giving the app's container, an init container and a sidecar
// these fields: a rule of every container's type meets all three.
func everyContainer(fields string) string {
	return fields + `, initContainers: [{name: migrate, image: m, ` + fields + `}], ` + sidecar(fields)
}

// inEveryContainer are the paths of a field of the init container and the sidecar
// everyContainer adds.
func inEveryContainer(field string) []string {
	return []string{"spec.initContainers[0]." + field, "spec.sidecars[0]." + field}
}

// appAndSidecar is spec fields giving the app's container and a sidecar these fields.
func appAndSidecar(fields string) string {
	return fields + `, ` + sidecar(fields)
}

// inAppAndSidecar are the paths of the fields in the app's container, then in the sidecar
// appAndSidecar adds.
func inAppAndSidecar(fields ...string) []string {
	paths := make([]string, 0, 2*len(fields))
	for _, prefix := range []string{"spec.", "spec.sidecars[0]."} {
		for _, f := range fields {
			paths = append(paths, prefix+f)
		}
	}
	return paths
}

// appAndSidecarProbes is a spec whose app's container and sidecar have the probe as each of
// their readinessProbe, livenessProbe and startupProbe.
func appAndSidecarProbes(probe string) string {
	return `{` + appAndSidecar(`readinessProbe: `+probe+`, livenessProbe: `+probe+`, startupProbe: `+probe) + `}`
}

// seccompEverywhere is a spec whose pod and every container have the seccomp profile.
func seccompEverywhere(profile string) string {
	return `{podSecurityContext: {seccompProfile: ` + profile + `}, ` + everyContainer(`securityContext: {seccompProfile: `+profile+`}`) + `}`
}

// TestEveryRuleHasACase keys each rule of the CRD's preferred version by the field its refusal
// names (its schema path and fieldPath, [*] for any item) and its message, and each case by its
// fields and the message it starts: a rule added at a new path, even with a message other
// paths hold, fails here without a case of its own, and so does a case left for a rule removed.
func TestEveryRuleHasACase(t *testing.T) {
	g := NewWithT(t)
	rules := crdRules(t)
	messages := map[string]bool{}
	for r := range rules {
		messages[r.message] = true
	}
	covered := map[crdRule]bool{}
	for _, c := range ruleCases {
		message, err := messageOf(messages, c.rule)
		g.Expect(err).NotTo(HaveOccurred())
		for _, field := range c.fields() {
			r := crdRule{field: anyIndex(field), message: message}
			g.Expect(rules).To(HaveKey(r), "the case %q names %s, where no rule has its message", c.rule, field)
			covered[r] = true
		}
	}
	var missing []string
	for r := range rules {
		if !covered[r] {
			missing = append(missing, fmt.Sprintf("%s: %q", r.field, r.message))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of the CRD's %d rules have no case in ruleCases at their field: add one, accepted and refused:\n%s",
			len(missing), len(rules), strings.Join(missing, "\n"))
	}
}

// TestRules submits, for every rule, its accepted spec and its refused one to both served
// versions: the first must pass, the second be refused with the rule's message at its field.
func TestRules(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, k8sClient, "test-")
	messages := map[string]bool{}
	for r := range crdRules(t) {
		messages[r.message] = true
	}
	for _, version := range []string{"v1", "v1beta1"} {
		for _, c := range ruleCases {
			t.Run(version+"/"+c.rule, func(t *testing.T) {
				g := NewWithT(t)
				message, err := messageOf(messages, c.rule)
				g.Expect(err).NotTo(HaveOccurred())

				err = submit(ctx, g, ns, version, "accepted", c.from, c.accepted)
				g.Expect(err).NotTo(HaveOccurred(), "the accepted spec: %s", c.accepted)

				name := c.name
				if name == "" {
					name = "refused"
				}
				err = submit(ctx, g, ns, version, name, c.from, c.refused)
				g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want the spec refused: %s, got %v", c.refused, err)
				for _, field := range c.fields() {
					g.Expect(causes(err)).To(ContainElement(And(HaveField("Field", field), HaveField("Message", ContainSubstring(message)))),
						"the refusal of %s lacks the rule's message at %s", c.refused, field)
				}
			})
		}
	}
}

// submit creates, as a dry run, the app of version named name with the spec fields, or with
// from creates it with those and updates it, as a dry run, to the spec fields.
func submit(ctx context.Context, g Gomega, namespace, version, name, from, fields string) error {
	if from == "" {
		return k8sClient.Create(ctx, app(g, namespace, version, name, fields), client.DryRunAll)
	}
	name += "-" + version
	old := app(g, namespace, version, name, from)
	g.Expect(k8sClient.Create(ctx, old)).To(Succeed(), "the spec updated from: %s", from)
	defer func() { g.Expect(k8sClient.Delete(ctx, old)).To(Succeed()) }()
	updated := app(g, namespace, version, name, fields)
	updated.SetResourceVersion(old.GetResourceVersion())
	return k8sClient.Update(ctx, updated, client.DryRunAll)
}

// fields are the paths the case's refused spec is refused at.
func (c ruleCase) fields() []string {
	return append([]string{c.field}, c.also...)
}

// index is an item's index in a path the API server names.
var index = regexp.MustCompile(`\[[0-9]+\]`)

// anyIndex is the schema path of a field the API server names: [*] for each index, and none
// for "<nil>", how it names the root.
func anyIndex(field string) string {
	if field == "<nil>" {
		return ""
	}
	return index.ReplaceAllString(field, "[*]")
}

// messageOf returns the message of messages that is rule or, if none is, the one it starts.
func messageOf(messages map[string]bool, rule string) (string, error) {
	if _, ok := messages[rule]; ok {
		return rule, nil
	}
	var started []string
	for m := range messages {
		if strings.HasPrefix(m, rule) {
			started = append(started, m)
		}
	}
	if len(started) != 1 {
		return "", fmt.Errorf("the case %q starts %d messages of the CRD's rules, not one: %q", rule, len(started), started)
	}
	return started[0], nil
}

// app is a DemoApplication of version whose spec holds the image and the fields in YAML.
func app(g Gomega, namespace, version, name, fields string) *unstructured.Unstructured {
	spec := map[string]any{}
	g.Expect(yaml.Unmarshal([]byte(fields), &spec)).To(Succeed(), "the case's YAML: %s", fields)
	if _, ok := spec["image"]; !ok {
		spec["image"] = "nginx:1.27"
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "paas.cmft.com/" + version,
		"kind":       "DemoApplication",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
	return u
}

// causes are the causes of a refusal, each a field and a message.
func causes(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	return status.Status().Details.Causes
}

// crdRule is a rule of the CRD: the field its refusal names, [*] for any item or key, and its
// message.
type crdRule struct{ field, message string }

// crdRules are the rules of the CRD's storage version, v1.
func crdRules(t *testing.T) map[crdRule]bool {
	t.Helper()
	crd := testenv.DemoApplicationCRD(t)
	rules := map[crdRule]bool{}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			walkRules(v.Schema.OpenAPIV3Schema, "", rules)
		}
	}
	if len(rules) == 0 {
		t.Fatal("the CRD has no rules")
	}
	return rules
}

// walkRules adds the rules of schema, at path, and of every schema below it to rules.
func walkRules(schema *apiextensionsv1.JSONSchemaProps, path string, rules map[crdRule]bool) {
	for _, rule := range schema.XValidations {
		rules[crdRule{field: strings.TrimPrefix(path+rule.FieldPath, "."), message: rule.Message}] = true
	}
	for name, property := range schema.Properties {
		walkRules(&property, path+"."+name, rules)
	}
	if schema.Items != nil && schema.Items.Schema != nil {
		walkRules(schema.Items.Schema, path+"[*]", rules)
	}
	if schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil {
		walkRules(schema.AdditionalProperties.Schema, path+"[*]", rules)
	}
}
