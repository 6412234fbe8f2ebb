{{- define "platform.name" -}}
{{- printf "%s-platform" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "platform.labels" -}}
app.kubernetes.io/name: platform
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "platform.selector" -}}
app.kubernetes.io/name: platform
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{/* The environment of both roles: the ConfigMap, the addresses, the key. */}}
{{- define "platform.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "platform.name" . }}
env:
  - name: MONGODB_URI
    value: {{ .Values.mongodbUri | quote }}
  - name: TEMPORAL_ADDRESS
    value: {{ .Values.temporalAddress | quote }}
  - name: PLATFORM_GATEWAY_URL
    value: {{ .Values.gatewayUrl | quote }}
  - name: PLATFORM_DOMAIN
    value: {{ .Values.domain | quote }}
  - name: PLATFORM_DATA
    value: /data
  - name: PLATFORM_MASTER_KEY
    valueFrom:
      secretKeyRef:
        name: {{ required "masterKey.secretName names the Secret of the master key" .Values.masterKey.secretName }}
        key: {{ .Values.masterKey.key }}
{{- end -}}
