{{- /* One type: its doc, where it is used, and its fields or its values. */ -}}
{{- define "type" -}}
{{- if markdownShouldRenderType . }}

### {{ .Name }}
{{- if .IsAlias }}

_Underlying type:_ {{ markdownRenderTypeLink .UnderlyingType }}
{{- end }}

{{ .Doc | trim }}
{{- if .Validation }}

_Validation:_ {{ template "validation" .Validation }}
{{- end }}
{{- if .References }}

_Appears in:_
{{- range .SortedReferences }} {{ markdownRenderTypeLink . }}{{ end }}
{{- end }}
{{- if .Members }}

| Field | Type | Description | Default | Validation |
| --- | --- | --- | --- | --- |
{{- if .GVK }}
| `apiVersion` | string | `{{ .GVK.Group }}/{{ .GVK.Version }}` | | |
| `kind` | string | `{{ .GVK.Kind }}` | | |
{{- end }}
{{- range .Members }}
| `{{ .Name }}` | {{ markdownRenderType .Type }} | {{ template "fieldDoc" . }} | {{ markdownRenderDefault .Default }} | {{ template "validation" .Validation }} |
{{- end }}
{{- end }}
{{- if .EnumValues }}

| Value | Description |
| --- | --- |
{{- range .EnumValues }}
| `{{ .Name }}` | {{ .Doc | replace "\n" " " | markdownRenderFieldDoc }} |
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{- /* A field's doc on one line of the table: wrapped lines joined, paragraphs kept. */ -}}
{{- define "fieldDoc" -}}
{{- if eq .Name "metadata" -}}
The object's [metadata](https://kubernetes.io/docs/reference/using-api/api-concepts/#standard-api-terminology): name, namespace, labels, annotations.
{{- else -}}
{{- .Doc | replace "\n\n" "<br /><br />" | replace "\n" " " | markdownRenderFieldDoc -}}
{{- end -}}
{{- end -}}

{{- /* The markers the API server checks, one per line; Optional is every field without
Required, and crd-ref-docs prints items' CEL rules raw, so both are left out. */ -}}
{{- define "validation" -}}
{{- $first := true -}}
{{- range . -}}
{{- if not (or (hasPrefix "Optional:" .) (hasPrefix "items:XValidation:" .) (hasPrefix "XIntOrString:" .)) -}}
{{- if not $first }}<br />{{ end }}{{ $first = false -}}
{{- if hasPrefix "Required:" . }}Required{{ else }}{{ . | replace "|" "\\|" }}{{ end -}}
{{- end -}}
{{- end -}}
{{- end -}}
