// Lints and renders deploy/helm/platform with the Helm library, in a module
// of its own: Helm and the Kubernetes modules it brings stay out of the
// platform's go.mod.
module platform/tools/helm

go 1.26.8

require helm.sh/helm/v4 v4.3.2 // indirect
