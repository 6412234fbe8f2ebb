package cluster

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"platform/test/infra"
	"platform/workflows/contract"
)

// composeFile is the part of docker-compose.yml the comparison reads.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Profiles    []string          `yaml:"profiles"`
		Command     any               `yaml:"command"`
		Entrypoint  any               `yaml:"entrypoint"`
		EnvFile     []string          `yaml:"env_file"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		Deploy      struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"deploy"`
	} `yaml:"services"`
}

func readCompose(t *testing.T, root string) composeFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// moduleVersion reads a requirement's version from a go.mod.
func moduleVersion(t *testing.T, gomod, module string) string {
	t.Helper()
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+v(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s does not require %s", gomod, module)
	}
	return string(m[1])
}

// TestComposeMatchesTheCluster: docker-compose.yml runs what make cluster
// runs and test-cluster tests, at the same versions and with the same
// settings: the Temporal server (four services, deploy/temporal-config.yaml,
// the dynamic config), its UI and FerretDB at the versions tools/cluster
// builds, PostgreSQL and nginx at the versions Debian installs, the
// gateway's routes, deploy/platform.env, two replicas of each role, and
// the namespace's search attributes.
func TestComposeMatchesTheCluster(t *testing.T) {
	root, err := infra.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	c := readCompose(t, root)
	tools := filepath.Join(root, "tools", "cluster", "go.mod")
	image := func(service string) string {
		s, ok := c.Services[service]
		if !ok {
			t.Fatalf("docker-compose.yml has no service %s", service)
		}
		return s.Image
	}
	temporal := moduleVersion(t, tools, "go.temporal.io/server")
	for _, want := range []struct{ service, image string }{
		{"temporal-frontend", "temporalio/server:" + temporal},
		{"temporal-history", "temporalio/server:" + temporal},
		{"temporal-matching", "temporalio/server:" + temporal},
		{"temporal-worker", "temporalio/server:" + temporal},
		{"temporal-schema", "temporalio/admin-tools:" + temporal},
		{"temporal-setup", "temporalio/admin-tools:" + temporal},
		{"temporal-ui", "temporalio/ui:" + moduleVersion(t, tools, "github.com/temporalio/ui-server/v2")},
		{"ferretdb", "ghcr.io/ferretdb/ferretdb:" + moduleVersion(t, tools, "github.com/FerretDB/FerretDB")},
	} {
		if got := image(want.service); got != want.image {
			t.Errorf("%s runs %s; make cluster runs %s", want.service, got, want.image)
		}
	}
	if moduleVersion(t, tools, "go.temporal.io/server") != moduleVersion(t, filepath.Join(root, "go.mod"), "go.temporal.io/server") {
		t.Error("tools/cluster builds another Temporal server than the platform embeds")
	}
	for service, pkg := range map[string]string{"postgres": "postgresql", "gateway": "nginx"} {
		tag := strings.SplitN(image(service), ":", 2)[1]
		if v := debianVersion(pkg); v != "" && !strings.HasPrefix(v, tag) {
			t.Errorf("%s runs %s; Debian's %s, which make cluster runs, is %s", service, image(service), pkg, v)
		}
	}
	for _, svc := range []string{"frontend", "history", "matching", "worker"} {
		s := c.Services["temporal-"+svc]
		if !slices.Equal(toStrings(s.Command), []string{svc}) {
			t.Errorf("temporal-%s runs the services %v", svc, s.Command)
		}
		for _, v := range []string{"./deploy/temporal-config.yaml:", "./deploy/temporal-dynamicconfig.yaml:"} {
			if !slices.ContainsFunc(s.Volumes, func(m string) bool { return strings.HasPrefix(m, v) }) {
				t.Errorf("temporal-%s does not read %s", svc, strings.TrimSuffix(v, ":"))
			}
		}
	}
	if !slices.ContainsFunc(c.Services["gateway"].Volumes, func(m string) bool { return strings.HasPrefix(m, "./deploy/nginx-gateway.conf:") }) {
		t.Error("the gateway does not serve deploy/nginx-gateway.conf")
	}
	for _, role := range []string{"api", "worker"} {
		s := c.Services[role]
		if s.Deploy.Replicas != 2 {
			t.Errorf("%s: %d replicas, make cluster runs 2", role, s.Deploy.Replicas)
		}
		if !slices.Equal(s.EnvFile, []string{"deploy/platform.env"}) {
			t.Errorf("%s: settings from %v, not deploy/platform.env", role, s.EnvFile)
		}
		for k := range s.Environment {
			if !perPlace[k] {
				t.Errorf("%s sets %s, which make cluster does not: put it in deploy/platform.env", role, k)
			}
		}
	}
	setup := strings.Join(toStrings(c.Services["temporal-setup"].Command), " ")
	for _, a := range contract.SearchAttributes {
		if !strings.Contains(setup, a) {
			t.Errorf("temporal-setup does not create the search attribute %s", a)
		}
	}
	script, err := os.ReadFile(filepath.Join(root, "deploy", "cluster.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "SEARCH_ATTRIBUTES=" + strings.Join(contract.SearchAttributes, ","); !strings.Contains(string(script), want+"\n") {
		t.Errorf("deploy/cluster.sh does not register the contract's search attributes (%s)", want)
	}
}

// perPlace are the settings that differ by where a replica runs.
var perPlace = map[string]bool{"MONGODB_URI": true, "TEMPORAL_ADDRESS": true, "PLATFORM_HTTP_ADDR": true,
	"PLATFORM_GATEWAY_URL": true, "PLATFORM_DOMAIN": true, "PLATFORM_TEMPORAL_UI_URL": true, "PLATFORM_MASTER_KEY": true}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i], _ = x.(string)
	}
	return out
}

// debianVersion is the installed version of a Debian package ("15+248",
// "1.22.1-9"), or "" when it is not installed.
func debianVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Status} ${Version}", pkg).Output()
	if err != nil || !strings.HasPrefix(string(out), "install ok installed") {
		return ""
	}
	f := strings.Fields(string(out))
	return f[len(f)-1]
}

// TestToolsShareThePlatformsVersions: every module tools/cluster and the
// platform both need is at the platform's version, so the servers'
// packages come from the build cache of make build.
func TestToolsShareThePlatformsVersions(t *testing.T) {
	root, err := infra.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	main, tools := requires(t, filepath.Join(root, "go.mod")), requires(t, filepath.Join(root, "tools", "cluster", "go.mod"))
	for mod, v := range tools {
		if mv, ok := main[mod]; ok && mv != v {
			t.Errorf("%s: tools/cluster %s, the platform %s", mod, v, mv)
		}
	}
}

func requires(t *testing.T, gomod string) map[string]string {
	f, err := os.Open(gomod)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	re := regexp.MustCompile(`^\s*(?:require\s+)?(\S+)\s+(v\S+)`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil && !strings.HasPrefix(m[1], "module") && m[1] != "go" {
			out[m[1]] = m[2]
		}
	}
	return out
}
