// Command hbkit-beam runs an hbkit job (verify, repair, rebuild, build,
// copy; package jobs) as an Apache Beam pipeline on any Beam runner:
//
//	hbkit-beam --spec '{"kind":"rebuild","table":"sms"}' --zk zk1:2181 \
//	    --runner flink --endpoint localhost:8099 --environment_type DOCKER
//
// The job's flags are --spec (the jobs.Spec as JSON, or @FILE), --zk (the
// ZooKeeper quorum), --hbase_site (hbase-site.xml files, comma-separated,
// read here and carried to the workers) and --report (a file for the
// report, for local runs). Beam's own flags (--runner, --endpoint or its
// alias --job_endpoint, --environment_type, --environment_config,
// --worker_binary, --project, --region, --temp_location, ...) select and
// configure the runner; the default runner is Prism, in this process.
// docs/beam.md gives the commands for Flink, Spark and Dataflow.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/hbkit/hbkit/contrib/beam/pipeline"
	"github.com/hbkit/hbkit/jobs"
)

var (
	specFlag   = flag.String("spec", "", "the job: a jobs.Spec as JSON, or @FILE to read it from FILE")
	zkFlag     = flag.String("zk", os.Getenv("HBKIT_ZK"), "ZooKeeper quorum host:port[,host:port...] (default $HBKIT_ZK)")
	siteFlag   = flag.String("hbase_site", "", "hbase-site.xml files, comma-separated, read here and carried to the workers")
	reportFlag = flag.String("report", "", "write the job's report (JSON) to this file (local runs: the worker of the last stage writes it)")
)

func main() {
	// --job_endpoint is the Python SDK's name of the Go SDK's --endpoint.
	flag.Func("job_endpoint", "the job service endpoint: an alias of --endpoint", func(v string) error {
		*jobopts.Endpoint = v
		return nil
	})
	flag.Parse()
	// A worker process started by the runner does its work in Init and
	// exits; the launching process goes on.
	beam.Init()
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "hbkit-beam:", err)
		os.Exit(1)
	}
}

// errUsage is wrapped by the errors of missing flags.
var errUsage = errors.New("usage")

func run(ctx context.Context) error {
	job, err := jobOf(*specFlag, *zkFlag, *siteFlag, *reportFlag)
	if err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	pipeline.Build(s, job)
	start := time.Now()
	if err := beamx.Run(ctx, p); err != nil {
		return err
	}
	// With --async the runner has only accepted the job.
	fmt.Fprintf(os.Stderr, "hbkit-beam: %s: pipeline returned after %.1f s\n", job.Spec.ID(), time.Since(start).Seconds())
	return nil
}

// jobOf builds the pipeline's Job from the command's flags.
func jobOf(spec, zk, site, report string) (pipeline.Job, error) {
	if spec == "" {
		return pipeline.Job{}, fmt.Errorf("%w: --spec is required", errUsage)
	}
	b := []byte(spec)
	if name, ok := strings.CutPrefix(spec, "@"); ok {
		var err error
		if b, err = os.ReadFile(name); err != nil {
			return pipeline.Job{}, err
		}
	}
	job := pipeline.Job{ReportPath: report}
	if err := json.Unmarshal(b, &job.Spec); err != nil {
		return pipeline.Job{}, fmt.Errorf("%w: --spec: %w", jobs.ErrSpec, err)
	}
	var paths []string
	if site != "" {
		paths = strings.Split(site, ",")
	}
	conn, err := pipeline.ConnFromSite(zk, paths...)
	if err != nil {
		return pipeline.Job{}, err
	}
	if conn.Quorum == "" && len(conn.Properties) == 0 {
		return pipeline.Job{}, fmt.Errorf("%w: --zk or --hbase_site is required", errUsage)
	}
	job.Conn = conn
	return job, nil
}
