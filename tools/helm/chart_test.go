// Package helm lints and renders deploy/helm/platform with the Helm
// library (helm.sh/helm/v4, from the module proxy) and checks what a
// production deployment of the API and worker roles needs.
package helm

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"sigs.k8s.io/yaml"
)

const chartDir = "../../deploy/helm/platform"

func TestChartLints(t *testing.T) {
	lint := action.NewLint()
	lint.Strict = true
	res := lint.Run([]string{chartDir}, nil)
	for _, m := range res.Messages {
		t.Logf("lint: %s", m)
	}
	if len(res.Errors) > 0 || res.TotalChartsLinted != 1 {
		t.Fatalf("helm lint --strict: %v (charts linted: %d)", res.Errors, res.TotalChartsLinted)
	}
}

// object is one rendered Kubernetes object.
type object map[string]any

func render(t *testing.T) map[string]object {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := util.ToRenderValues(ch, nil, common.ReleaseOptions{Name: "prod", Namespace: "platform", IsInstall: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(ch, vals)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]object{}
	for name, text := range files {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, doc := range strings.Split(text, "\n---") {
			var o object
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, doc)
			}
			if o == nil {
				continue
			}
			meta := o["metadata"].(map[string]any)
			out[o["kind"].(string)+"/"+meta["name"].(string)] = o
		}
	}
	return out
}

// get walks a path of map keys and list indexes ("0").
func get(v any, path ...string) any {
	for _, p := range path {
		if o, ok := v.(object); ok {
			v = map[string]any(o)
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			if p != "0" || len(x) == 0 {
				return nil
			}
			v = x[0]
		default:
			return nil
		}
	}
	return v
}

// Each role: probes on its own port, resource requests, a grace period
// longer than the platform's shutdown time-out, the settings and the
// master key from a Secret, and a PodDisruptionBudget selecting its pods.
func TestChartRendersBothRoles(t *testing.T) {
	objs := render(t)
	for _, role := range []struct{ name, port string }{{"api", "http"}, {"worker", "health"}} {
		dep := objs["Deployment/prod-platform-"+role.name]
		if dep == nil {
			t.Fatalf("no Deployment of the %s role: %v", role.name, keys(objs))
		}
		pod := get(dep, "spec", "template", "spec")
		c := get(pod, "containers", "0")
		if got := get(c, "args", "0"); got != role.name {
			t.Errorf("%s: runs %v", role.name, got)
		}
		for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
			if get(c, probe, "httpGet", "path") != path || get(c, probe, "httpGet", "port") != role.port {
				t.Errorf("%s: %s is %v, want GET %s on %s", role.name, probe, get(c, probe), path, role.port)
			}
		}
		for _, r := range []string{"cpu", "memory"} {
			if get(c, "resources", "requests", r) == nil {
				t.Errorf("%s: no %s request", role.name, r)
			}
		}
		if grace, _ := get(pod, "terminationGracePeriodSeconds").(float64); grace <= 35 {
			t.Errorf("%s: grace period %v s, not above the 30 s shutdown time-out and the drain delay", role.name, grace)
		}
		env := map[string]any{}
		for _, e := range get(c, "env").([]any) {
			env[get(e, "name").(string)] = e
		}
		for _, want := range []string{"MONGODB_URI", "TEMPORAL_ADDRESS", "PLATFORM_GATEWAY_URL", "PLATFORM_MASTER_KEY"} {
			if env[want] == nil {
				t.Errorf("%s: %s is not set", role.name, want)
			}
		}
		if get(env["PLATFORM_MASTER_KEY"], "valueFrom", "secretKeyRef", "name") == nil {
			t.Errorf("%s: the master key does not come from a Secret", role.name)
		}
		pdb := objs["PodDisruptionBudget/prod-platform-"+role.name]
		if pdb == nil || get(pdb, "spec", "minAvailable") == nil {
			t.Fatalf("%s: no PodDisruptionBudget with minAvailable", role.name)
		}
		labels := get(dep, "spec", "template", "metadata", "labels").(map[string]any)
		for k, v := range get(pdb, "spec", "selector", "matchLabels").(map[string]any) {
			if labels[k] != v {
				t.Errorf("%s: the PodDisruptionBudget selects %s=%v, the pods have %v", role.name, k, v, labels[k])
			}
		}
	}
	if objs["Service/prod-platform-api"] == nil {
		t.Error("no Service in front of the API")
	}
}

// The chart's settings are deploy/platform.env's, which make cluster ran
// and docker-compose.yml uses.
func TestChartSettingsAreTheClusters(t *testing.T) {
	cm := render(t)["ConfigMap/prod-platform"]
	data, _ := get(cm, "data").(map[string]any)
	f, err := os.Open(filepath.Join("..", "..", "deploy", "platform.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			want[k] = v
		}
	}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("%s: the chart sets %v, deploy/platform.env %q", k, data[k], v)
		}
	}
	for k := range data {
		if _, ok := want[k]; !ok {
			t.Errorf("the chart sets %s, which deploy/platform.env does not", k)
		}
	}
}

func keys(m map[string]object) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
