{{- define "sightline.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sightline.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "sightline.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end -}}

{{/* Readiness/liveness on Spring Boot's actuator probes. */}}
{{- define "sightline.probes" -}}
readinessProbe:
  httpGet: {path: /actuator/health/readiness, port: http}
  periodSeconds: 5
  failureThreshold: 3
livenessProbe:
  httpGet: {path: /actuator/health/liveness, port: http}
  initialDelaySeconds: 60
  periodSeconds: 10
startupProbe:
  httpGet: {path: /actuator/health/liveness, port: http}
  periodSeconds: 5
  failureThreshold: 60
{{- end -}}
