{{/* The chart's name, as objects' names and labels use it. */}}
{{- define "nodepilot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The objects' name: fullnameOverride, or the release name alone when it already holds the chart's
name, or both joined; at most 63 characters (a DNS label).
*/}}
{{- define "nodepilot.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "nodepilot.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The labels that select this release's pods. */}}
{{- define "nodepilot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "nodepilot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The labels of every object. */}}
{{- define "nodepilot.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "nodepilot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The ServiceAccount the controller runs as. */}}
{{- define "nodepilot.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "nodepilot.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name: the existing ServiceAccount to run as, when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image reference: repository, tag (default: appVersion), and digest when given. */}}
{{- define "nodepilot.image" -}}
{{- $ref := printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- if .Values.image.digest }}
{{- $ref = printf "%s@%s" $ref .Values.image.digest }}
{{- end }}
{{- $ref }}
{{- end }}

{{/*
The controller's command line: each setting as the flag of `nodepilot controller` it names, a
setting left empty as no flag (the controller's default applies).
*/}}
{{- define "nodepilot.args" -}}
- controller
- {{ printf "--cluster-name=%s" (required "settings.clusterName: the cluster's name is required" .Values.settings.clusterName) | quote }}
- --leader-elect=true
- {{ printf "--metrics-addr=:%v" .Values.metrics.port | quote }}
- {{ printf "--health-addr=:%v" .Values.healthProbe.port | quote }}
- {{ printf "--log-level=%s" .Values.logLevel | quote }}
{{- with .Values.settings.interruptionQueue }}
- {{ printf "--interruption-queue=%s" . | quote }}
{{- end }}
{{- with .Values.settings.region }}
- {{ printf "--region=%s" . | quote }}
{{- end }}
{{- with .Values.settings.batchIdleDuration }}
- {{ printf "--batch-idle-duration=%s" . | quote }}
{{- end }}
{{- with .Values.settings.batchMaxDuration }}
- {{ printf "--batch-max-duration=%s" . | quote }}
{{- end }}
{{- with .Values.settings.preferencePolicy }}
- {{ printf "--preference-policy=%s" . | quote }}
{{- end }}
{{- if .Values.settings.featureGates.spotToSpotConsolidation }}
- --spot-to-spot
{{- end }}
{{- if .Values.dryRun }}
- --dry-run
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end }}

{{/*
withSelector adds a labelSelector selecting this release's pods to the term (a map, changed in
place) when it has none. Call with (dict "term" TERM "root" $).
*/}}
{{- define "nodepilot.withSelector" -}}
{{- if not (hasKey .term "labelSelector") }}
{{- $_ := set .term "labelSelector" (dict "matchLabels" (include "nodepilot.selectorLabels" .root | fromYaml)) }}
{{- end }}
{{- end }}

{{/* The pod's affinity: .Values.affinity, its pod (anti-)affinity terms given a labelSelector. */}}
{{- define "nodepilot.affinity" -}}
{{- $affinity := deepCopy .Values.affinity }}
{{- range $kind := list "podAffinity" "podAntiAffinity" }}
{{- with get $affinity $kind }}
{{- range .requiredDuringSchedulingIgnoredDuringExecution }}
{{- include "nodepilot.withSelector" (dict "term" . "root" $) }}
{{- end }}
{{- range .preferredDuringSchedulingIgnoredDuringExecution }}
{{- include "nodepilot.withSelector" (dict "term" .podAffinityTerm "root" $) }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml $affinity }}
{{- end }}

{{/* The pod's topology spread constraints, each given a labelSelector. */}}
{{- define "nodepilot.topologySpreadConstraints" -}}
{{- $constraints := deepCopy .Values.topologySpreadConstraints }}
{{- range $constraints }}
{{- include "nodepilot.withSelector" (dict "term" . "root" $) }}
{{- end }}
{{- toYaml $constraints }}
{{- end }}
