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
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "podconfig-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "podconfig-exporter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "podconfig-exporter.image" -}}
{{- $registry := default .Values.image.registry .Values.global.imageRegistry }}
{{- $repo := printf "%s/%s" $registry .Values.image.repository | trimPrefix "/" }}
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
{{- with .scrapeTimeout }}
scrapeTimeout: {{ . }}
{{- end }}
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
  {{- if not .jobLabel }}
  # The job name the rules and dashboards select by default.
  - action: replace
    targetLabel: job
    replacement: podconfig-exporter
  {{- end }}
  # One stable instance per node across exporter restarts.
  - action: replace
    sourceLabels: [__meta_kubernetes_pod_node_name]
    targetLabel: instance
  # The node's name as kubernetes-mixin's node alerts carry it, for Alertmanager's inhibitions.
  - action: replace
    sourceLabels: [__meta_kubernetes_pod_node_name]
    targetLabel: node
  {{- with .relabelings }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with .metricRelabelings }}
metricRelabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The job a monitor's targets get: its jobLabel's value, for the labels the chart sets on the
Service (monitor) or the pods (podMonitor); without a jobLabel, "podconfig-exporter".
*/}}
{{- define "podconfig-exporter.monitorJob" -}}
{{- $monitor := index . 0 }}
{{- $labels := index . 1 }}
{{- if not $monitor.jobLabel }}podconfig-exporter
{{- else if hasKey $labels $monitor.jobLabel }}{{ index $labels $monitor.jobLabel }}
{{- else }}
{{- fail (printf "prometheus.*.jobLabel %q is not a label the chart sets on the scraped objects (%s): set mixin.podconfigSelector to the job it yields" $monitor.jobLabel (keys $labels | sortAlpha | join ", ")) }}
{{- end }}
{{- end }}

{{/* The labels the chart sets on the Service and on the pods, as a dict. */}}
{{- define "podconfig-exporter.serviceLabels" -}}
{{- $labels := include "podconfig-exporter.labels" . | fromYaml }}
{{- toYaml (merge (deepCopy (default dict .Values.service.labels)) $labels) }}
{{- end }}
{{- define "podconfig-exporter.podLabels" -}}
{{- $labels := include "podconfig-exporter.labels" . | fromYaml }}
{{- toYaml (merge (deepCopy (default dict .Values.podLabels)) $labels) }}
{{- end }}

{{/*
The label matchers the rules and dashboards select the exporter's series with: mixin's, or
what the enabled scrape path produces.
*/}}
{{- define "podconfig-exporter.selector" -}}
{{- $p := .Values.prometheus }}
{{- if .Values.mixin.podconfigSelector }}{{ .Values.mixin.podconfigSelector }}
{{- else if $p.monitor.enabled }}job="{{ include "podconfig-exporter.monitorJob" (list $p.monitor (include "podconfig-exporter.serviceLabels" . | fromYaml)) }}"
{{- else if $p.podMonitor.enabled }}job="{{ include "podconfig-exporter.monitorJob" (list $p.podMonitor (include "podconfig-exporter.podLabels" . | fromYaml)) }}"
{{- else if include "podconfig-exporter.serviceScrapeAnnotations" . }}job="kubernetes-service-endpoints", service="{{ include "podconfig-exporter.fullname" . }}"
{{- else if include "podconfig-exporter.podScrapeAnnotations" . }}job="kubernetes-pods", app_kubernetes_io_name="{{ include "podconfig-exporter.name" . }}", app_kubernetes_io_instance="{{ .Release.Name }}"
{{- else }}job="podconfig-exporter"
{{- end }}
{{- end }}

{{/* Whether the Service, or the pods, carry the prometheus.io annotations. */}}
{{- define "podconfig-exporter.serviceScrapeAnnotations" -}}
{{- if and .Values.service.enabled .Values.service.scrapeAnnotations (not .Values.webConfig.enabled) }}true{{ end }}
{{- end }}
{{- define "podconfig-exporter.podScrapeAnnotations" -}}
{{- if and .Values.podScrapeAnnotations (not .Values.webConfig.enabled) }}true{{ end }}
{{- end }}

{{/* The mixin's configuration, its selector resolved, as JSON. */}}
{{- define "podconfig-exporter.mixin" -}}
{{- $c := deepCopy .Values.mixin }}
{{- $_ := set $c "podconfigSelector" (include "podconfig-exporter.selector" .) }}
{{- toJson $c }}
{{- end }}

{{/* A string as the inside of a JSON string literal. */}}
{{- define "podconfig-exporter.jsonString" -}}
{{- toJson (toString .) | trimPrefix "\"" | trimSuffix "\"" }}
{{- end }}

{{/* A number as JavaScript writes it: whole numbers without a fraction or an exponent. */}}
{{- define "podconfig-exporter.number" -}}
{{- $x := float64 . }}
{{- if eq $x (floor $x) }}{{ int64 $x }}{{ else }}{{ $x }}{{ end }}
{{- end }}

{{/* Seconds in a Prometheus duration ("90s", "1h30m"), as mixin/config.ts durationSeconds. */}}
{{- define "podconfig-exporter.durationSeconds" -}}
{{- $units := dict "ms" 0.001 "s" 1.0 "m" 60.0 "h" 3600.0 "d" 86400.0 "w" 604800.0 }}
{{- $total := 0.0 }}
{{- range regexFindAll "[0-9]+(ms|s|m|h|d|w)" (toString .) -1 }}
{{- $n := regexFind "^[0-9]+" . }}
{{- $total = addf $total (mulf (float64 $n) (get $units (trimPrefix $n .))) }}
{{- end }}
{{- include "podconfig-exporter.number" $total }}
{{- end }}

{{/* A duration in words for alert texts, as mixin/config.ts durationWords: "10 minutes". */}}
{{- define "podconfig-exporter.durationWords" -}}
{{- $s := include "podconfig-exporter.durationSeconds" . | float64 }}
{{- $n := $s }}
{{- $unit := "second" }}
{{- if eq (mulf (floor (divf $s 3600.0)) 3600.0) $s }}
{{- $n = divf $s 3600.0 }}{{ $unit = "hour" }}
{{- else if eq (mulf (floor (divf $s 60.0)) 60.0) $s }}
{{- $n = divf $s 60.0 }}{{ $unit = "minute" }}
{{- end }}
{{- include "podconfig-exporter.number" $n }} {{ $unit }}{{ if ne $n 1.0 }}s{{ end }}
{{- end }}

{{/*
Keys users of the prometheus-node-exporter and kube-state-metrics charts set that this chart
has no use for: refused with what to use instead, never ignored.
*/}}
{{- define "podconfig-exporter.refusals" -}}
{{- $v := .Values }}
{{- if hasKey $v "containerPort" }}{{ fail "containerPort: use port (the container listens there; service.port sets the Service's)" }}{{ end }}
{{- if hasKey $v "hostPID" }}{{ fail "hostPID: the exporter reads no host process; nothing to set (hostNetwork puts it on the node's network)" }}{{ end }}
{{- if hasKey $v "kubeRBACProxy" }}{{ fail "kubeRBACProxy: use webConfig (TLS and basic auth on the metrics port, exporter-toolkit's --web.config.file)" }}{{ end }}
{{- if hasKey $v "podSecurityPolicy" }}{{ fail "podSecurityPolicy: PodSecurityPolicy was removed in Kubernetes 1.25; label the namespace pod-security.kubernetes.io/enforce=privileged (README.md)" }}{{ end }}
{{- if hasKey $v.service "targetPort" }}{{ fail "service.targetPort: the Service targets the container's port, set by port" }}{{ end }}
{{- range $name := list "monitor" "podMonitor" }}
{{- if hasKey (index $v.prometheus $name) "selectorOverride" }}{{ fail (printf "prometheus.%s.selectorOverride: the monitor selects this release's pods; use prometheus.%s.relabelings to keep or drop targets" $name $name) }}{{ end }}
{{- end }}
{{- end }}
