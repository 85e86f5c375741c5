{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "demo-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every object name; the release name alone when it already holds the chart's. */}}
{{- define "demo-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Labels of every object the chart makes. Values are quoted: a release named 123 or yes would
otherwise give a number or a boolean, which the API server refuses as a label value. They
leave out control-plane, so that no object but the manager pods matches the selector of the
metrics Service, the NetworkPolicy or the PodDisruptionBudget (the helm test pod included).
*/}}
{{- define "demo-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/name: {{ include "demo-operator.name" . | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
{{- end }}

{{/* The manager pods' selector. Immutable in a Deployment: nothing here may change across upgrades. */}}
{{- define "demo-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "demo-operator.name" . | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
control-plane: controller-manager
{{- end }}

{{- define "demo-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "demo-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The manager image: by digest when one is given (in image.digest or the repository), else by tag. */}}
{{- define "demo-operator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else if contains "@" .Values.image.repository }}
{{- .Values.image.repository }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The leader-election Lease: one per release, so that releases sharing a namespace do not share a leader. */}}
{{- define "demo-operator.leaderElectionID" -}}
{{- default (printf "%s.paas.cmft.com" (include "demo-operator.fullname" .)) .Values.leaderElection.id }}
{{- end }}

{{/* The Secret whose token the ServiceMonitor sends: the user's, else the chart's scraper's. */}}
{{- define "demo-operator.scraperTokenSecret" -}}
{{- default (printf "%s-metrics-scraper" (include "demo-operator.fullname" .)) .Values.metrics.serviceMonitor.tokenSecret.name }}
{{- end }}

{{/* The Secret with the metrics serving certificate, if any: the user's, else cert-manager's. */}}
{{- define "demo-operator.metricsCertSecret" -}}
{{- if .Values.metrics.tls.secretName }}
{{- .Values.metrics.tls.secretName }}
{{- else if .Values.metrics.tls.certManager.enabled }}
{{- printf "%s-metrics-cert" (include "demo-operator.fullname" .) }}
{{- end }}
{{- end }}

{{/*
A ClusterRole whose rules come from a file that `make manifests` copies from config/rbac,
renamed after the release and labelled by the chart. Takes (dict "root" $ "file" "role.yaml"
"suffix" "manager").
*/}}
{{- define "demo-operator.roleFromFile" -}}
{{- $src := .root.Files.Get (printf "files/rbac/%s" .file) | fromYaml }}
{{- $labels := merge (include "demo-operator.labels" .root | fromYaml) (default (dict) $src.metadata.labels) }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ include "demo-operator.fullname" .root }}-{{ .suffix }}
  labels:
    {{- toYaml $labels | nindent 4 }}
rules:
  {{- toYaml $src.rules | nindent 2 }}
{{- end }}

{{/*
The file of the manager's rules, as `make manifests` generates them from the markers of the
controllers the release runs: both, or one alone.
*/}}
{{- define "demo-operator.managerRulesFile" -}}
{{- if not .Values.controllers.demoApplication.enabled }}pod-labeler-only.yaml
{{- else if not .Values.controllers.podLabeler.enabled }}demoapplication-only.yaml
{{- else }}role.yaml
{{- end }}
{{- end }}

{{/* The manager's rules. */}}
{{- define "demo-operator.managerRules" -}}
{{- (.Files.Get (printf "files/rbac/%s" (include "demo-operator.managerRulesFile" .)) | fromYaml).rules | toYaml }}
{{- end }}
