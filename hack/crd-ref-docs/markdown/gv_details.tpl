{{- /* One group version: its package doc, its kinds, then every type its kinds use. */ -}}
{{- define "gvDetails" -}}
## {{ .GroupVersionString }}

{{ .Doc | trim }}
{{- if .Kinds }}

Kinds:
{{- range .SortedKinds }}
- {{ $.TypeForKind . | markdownRenderTypeLink }}
{{- end }}
{{- end }}
{{- range .SortedTypes }}
{{- template "type" . }}
{{- end }}
{{- end -}}
