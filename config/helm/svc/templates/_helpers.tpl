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

{{/*
The operator's updates skip the validating webhooks (webhook/configurations.ts,
operatorWrites, says why that is safe): it writes only metadata there, never spec, and every
check on an update is about spec. Creates are judged whoever makes them.
*/}}
{{- define "svc.webhookMatchConditions" -}}
matchConditions:
  - name: not-an-operator-update
    expression: "request.operation != 'UPDATE' || request.userInfo.username != 'system:serviceaccount:{{ include "svc.namespace" . }}:{{ include "svc.serviceAccountName" (dict "root" . "component" "operator") }}'"
{{- end -}}

{{/*
Where the webhook's serving certificate comes from: "certManager" or "selfSigned"
(webhook.certificates; auto: cert-manager where the cluster serves its API).
*/}}
{{- define "svc.webhookCertificates" -}}
{{- $mode := .Values.webhook.certificates | default "auto" -}}
{{- if ne $mode "auto" -}}
{{- $mode -}}
{{- else if .Capabilities.APIVersions.Has "cert-manager.io/v1" -}}
certManager
{{- else -}}
selfSigned
{{- end -}}
{{- end -}}

{{/*
The self-signed mode's key pair, as JSON: crt, key and ca (base64, the Secret's data),
caBundle (PEM, for the WebhookConfigurations), notAfter (Unix seconds).

Why the chart and not the webhook makes it: a webhook writing its own caBundle would need
the right to update WebhookConfigurations cluster-wide (a right that lets it switch off any
admission webhook) and a Secret write shared by its replicas; the chart already holds both
as the installer. `lookup` reads the Secret back, so an upgrade keeps the pair (the caBundle
stays the CA that signed what the Pods serve, and the Pods do not roll) until it is within
renewBeforeDays of expiry; then a new CA and certificate are made, and the caBundle trusts
the old CA and the new until the next upgrade, so Pods still serving the old certificate
during the roll are trusted too. Made once per render and kept in the render's root
context, so the Secret, the WebhookConfigurations and the Deployment's checksum (which
rolls the Pods when the pair changes) all see the same pair.
*/}}
{{- define "svc.webhookSelfSigned" -}}
{{- if not (hasKey $ "svcWebhookSelfSigned") -}}
{{- $ns := include "svc.namespace" . -}}
{{- $svc := printf "%s-webhook" (include "svc.fullname" .) -}}
{{- $days := int .Values.webhook.selfSigned.validityDays -}}
{{- $now := now | unixEpoch | atoi -}}
{{- $old := lookup "v1" "Secret" $ns (printf "%s-tls" $svc) -}}
{{- $oldData := dig "data" dict $old -}}
{{- $oldNotAfter := dig "metadata" "annotations" "svc.io/not-after" "0" $old | atoi -}}
{{- $renewAt := sub $oldNotAfter (mul (int .Values.webhook.selfSigned.renewBeforeDays) 86400) -}}
{{- $tls := dict -}}
{{- if and (hasKey $oldData "tls.crt") (hasKey $oldData "tls.key") (hasKey $oldData "ca.crt") (gt $renewAt $now) -}}
{{- $tls = dict "crt" (index $oldData "tls.crt") "key" (index $oldData "tls.key") "ca" (index $oldData "ca.crt") "caBundle" (index $oldData "ca.crt" | b64dec) "notAfter" $oldNotAfter -}}
{{- else -}}
{{- $ca := genCA (printf "%s-ca" $svc) $days -}}
{{- $cert := genSignedCert $svc nil (list (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns)) $days $ca -}}
{{- $bundle := $ca.Cert -}}
{{- with index $oldData "ca.crt" }}{{ $bundle = printf "%s%s" $bundle (b64dec .) }}{{ end -}}
{{- $tls = dict "crt" ($cert.Cert | b64enc) "key" ($cert.Key | b64enc) "ca" ($ca.Cert | b64enc) "caBundle" $bundle "notAfter" (add $now (mul $days 86400)) -}}
{{- end -}}
{{- $_ := set $ "svcWebhookSelfSigned" ($tls | toJson) -}}
{{- end -}}
{{- index $ "svcWebhookSelfSigned" -}}
{{- end -}}
