{{- define "tether.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tether.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "tether.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* "true" when some configured node uses the Kubernetes provider (it reads Secrets and ConfigMaps). */}}
{{- define "tether.kubernetesProvider" -}}
{{- $found := false -}}
{{- range .Values.config.nodes -}}
{{- if eq (toString (dig "provider" "type" "" .)) "kubernetes" -}}{{- $found = true -}}{{- end -}}
{{- end -}}
{{- if $found }}true{{ end -}}
{{- end -}}

{{/* "true" when some Kubernetes-provider node gives its pods ServiceAccount access to the host API server (provider.hostServiceAccountAccess.enabled). */}}
{{- define "tether.hostServiceAccountAccess" -}}
{{- $found := false -}}
{{- range .Values.config.nodes -}}
{{- if and (eq (toString (dig "provider" "type" "" .)) "kubernetes") (eq (toString (dig "provider" "hostServiceAccountAccess" "enabled" false .)) "true") -}}{{- $found = true -}}{{- end -}}
{{- end -}}
{{- if $found }}true{{ end -}}
{{- end -}}

{{/* The virtual nodes' names, as a YAML flow list (resourceNames of their Nodes and Leases). */}}
{{- define "tether.nodeNames" -}}
{{- $names := list -}}
{{- range .Values.config.nodes -}}{{- $names = append $names .name -}}{{- end -}}
{{- toJson $names -}}
{{- end -}}
