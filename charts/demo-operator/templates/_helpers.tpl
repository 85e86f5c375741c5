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

{{- define "demo-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "demo-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Immutable in a Deployment: nothing here may change across upgrades. */}}
{{- define "demo-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "demo-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
control-plane: controller-manager
{{- end }}

{{- define "demo-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "demo-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "demo-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
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

{{/* The manager's rules, as `make manifests` generates them from the controllers' markers. */}}
{{- define "demo-operator.managerRules" -}}
{{- (.Files.Get "files/rbac/role.yaml" | fromYaml).rules | toYaml }}
{{- end }}
