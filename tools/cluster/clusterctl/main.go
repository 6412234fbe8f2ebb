// Command clusterctl is the small helper deploy/cluster.sh needs where a
// shell has no tool: waiting for a TCP port or an HTTP answer, and
// preparing a Temporal namespace (register it, add the platform's search
// attributes) as the temporalio/admin-tools image does in
// docker-compose.yml. Every step retries until its time-out, so the
// cluster's processes may come up in any order.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

const usage = `usage:
  clusterctl wait-tcp <host:port> [timeout]
  clusterctl wait-http <url> [timeout]      (waits for a 200)
  clusterctl temporal-setup -address <host:port> -namespace <name> -retention <duration> -keywords <a,b,...> [-timeout <duration>]`

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "wait-tcp":
		err = retry(timeoutArg(), "connect to "+os.Args[2], func(ctx context.Context) error { return dialTCP(ctx, os.Args[2]) })
	case "wait-http":
		err = retry(timeoutArg(), "GET "+os.Args[2], func(ctx context.Context) error { return get200(ctx, os.Args[2]) })
	case "temporal-setup":
		err = temporalSetup(os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clusterctl:", err)
		os.Exit(1)
	}
}

func timeoutArg() time.Duration {
	if len(os.Args) > 3 {
		if d, err := time.ParseDuration(os.Args[3]); err == nil {
			return d
		}
	}
	return 2 * time.Minute
}

// retry runs fn until it succeeds or timeout has passed, waiting 200 ms
// to 2 s between attempts, and returns the last error.
func retry(timeout time.Duration, what string, fn func(ctx context.Context) error) error {
	deadline := time.Now().Add(timeout)
	wait := 200 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := fn(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("%s: still failing after %s: %w", what, timeout, err)
		}
		time.Sleep(wait)
		wait = min(2*wait, 2*time.Second)
	}
}

func dialTCP(ctx context.Context, addr string) error {
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

func get200(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %s", res.Status)
	}
	return nil
}

// temporalSetup registers the namespace and its keyword search attributes
// (both idempotent), then waits until the frontend knows the namespace.
func temporalSetup(args []string) error {
	fs := flag.NewFlagSet("temporal-setup", flag.ExitOnError)
	address := fs.String("address", "127.0.0.1:7233", "Temporal frontend")
	namespace := fs.String("namespace", "default", "namespace to register")
	retention := fs.Duration("retention", 72*time.Hour, "retention of closed workflows")
	keywords := fs.String("keywords", "", "comma-separated keyword search attributes")
	timeout := fs.Duration("timeout", 2*time.Minute, "how long to retry")
	_ = fs.Parse(args)
	conn, err := grpc.NewClient(*address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	wf, op := workflowservice.NewWorkflowServiceClient(conn), operatorservice.NewOperatorServiceClient(conn)
	err = retry(*timeout, "register namespace "+*namespace, func(ctx context.Context) error {
		_, err := wf.RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
			Namespace: *namespace, WorkflowExecutionRetentionPeriod: durationpb.New(*retention)})
		if status.Code(err) == codes.AlreadyExists {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	err = retry(*timeout, "describe namespace "+*namespace, func(ctx context.Context) error {
		_, err := wf.DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: *namespace})
		return err
	})
	if err != nil || *keywords == "" {
		return err
	}
	return retry(*timeout, "add search attributes", func(ctx context.Context) error {
		return addKeywords(ctx, op, *namespace, strings.Split(*keywords, ","))
	})
}

// addKeywords adds those of names the namespace does not have yet.
func addKeywords(ctx context.Context, op operatorservice.OperatorServiceClient, namespace string, names []string) error {
	have, err := op.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return err
	}
	missing := map[string]enumspb.IndexedValueType{}
	for _, n := range names {
		if _, ok := have.GetCustomAttributes()[n]; !ok {
			missing[n] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = op.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: namespace, SearchAttributes: missing})
	if status.Code(err) == codes.AlreadyExists {
		return nil
	}
	return err
}
