{{/* Object names: the release name, or "<release>-svc" when it does not already say svc. */}}
{{- define "svc.fullname" -}}
{{- if contains "svc" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-svc" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The control plane's namespace. */}}
{{- define "svc.namespace" -}}
{{- default .Release.Namespace .Values.namespace -}}
{{- end -}}

{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: svc
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "svc.labels" -}}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/part-of: svc
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* Labels of a cluster-wide or shared object (no component). */}}
{{- define "svc.commonLabels" -}}
app.kubernetes.io/name: svc
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: svc
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "svc.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "svc.serviceAccountName" -}}
{{- printf "%s-%s" (include "svc.fullname" .root) .component -}}
{{- end -}}

{{/* The Pod-level part every component shares: non-root, no service-account token unless asked. */}}
{{- define "svc.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "svc.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{- define "svc.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "svc.commonArgs" -}}
- --service-namespace={{ include "svc.namespace" . }}
- --log-level={{ .Values.logLevel }}
{{- with .Values.otlpEndpoint }}
- --otlp-endpoint={{ . }}
{{- end }}
{{- end -}}

{{/* What both admission webhooks share: the same objects webhook/configurations.ts builds. */}}
{{- define "svc.webhookCommon" -}}
rules:
  - apiGroups: ["svc.io"]
    apiVersions: ["v1alpha1"]
    resources: ["sandboxes"]
    operations: ["CREATE", "UPDATE"]
    scope: Namespaced
failurePolicy: {{ .Values.optional.admissionWebhook.failurePolicy }}
sideEffects: None
admissionReviewVersions: ["v1"]
timeoutSeconds: 10
{{- end -}}
