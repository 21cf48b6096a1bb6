{{/* The chart's name, truncated to Kubernetes' 63 characters. */}}
{{- define "podconfig-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's objects' name. */}}
{{- define "podconfig-exporter.fullname" -}}
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

{{- define "podconfig-exporter.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride }}
{{- end }}

{{- define "podconfig-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "podconfig-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "podconfig-exporter.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "podconfig-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: metrics
{{- end }}

{{- define "podconfig-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "podconfig-exporter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "podconfig-exporter.image" -}}
{{- $repo := printf "%s/%s" .Values.image.registry .Values.image.repository | trimPrefix "/" }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repo .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The kubelet.crt hostPath is mounted only in kubeadm mode. */}}
{{- define "podconfig-exporter.hostPaths" -}}
{{- if or .Values.sources.file.enabled (and .Values.kubelet.crossCheck (eq .Values.kubelet.tls.mode "kubeadm")) }}true{{ end }}
{{- end }}

{{/* The scrape endpoint's settings shared by the ServiceMonitor and the PodMonitor. */}}
{{- define "podconfig-exporter.scrapeEndpoint" -}}
path: /metrics
interval: {{ .interval }}
scrapeTimeout: {{ .scrapeTimeout }}
scheme: {{ .scheme }}
{{- with .tlsConfig }}
tlsConfig:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .basicAuth }}
basicAuth:
  {{- toYaml . | nindent 2 }}
{{- end }}
relabelings:
  # The job name the rules and dashboards select.
  - action: replace
    targetLabel: job
    replacement: podconfig-exporter
  # One stable instance per node across exporter restarts.
  - action: replace
    sourceLabels: [__meta_kubernetes_pod_node_name]
    targetLabel: instance
{{- end }}
