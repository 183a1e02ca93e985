// Package pipeline runs an hbkit job (package jobs: verify, repair,
// rebuild, build, copy) as an Apache Beam pipeline, so that the units of
// one job spread over the workers of a Beam runner: Flink, Spark,
// Dataflow, or Prism in tests.
//
// The pipeline plans the job's units once, in its first stage, reshuffles
// them over the workers, and runs each unit through the checkpoint store
// of package jobs: a worker claims the unit, commits after every batch,
// and a unit whose bundle the runner retries resumes from its checkpoint,
// so no row is counted twice. The last stage sums the units' counts into
// the job's report.
//
// Who uses it: operators who run jobs on an existing Beam cluster, through
// the command hbkit-beam or a pipeline of their own (Build). A job that
// fits one machine, or a set of plain processes given a shard, needs no
// Beam: package jobs and `hbkit job` run the same units and checkpoints.
//
// Beam's Go SDK finds DoFns and their types by name in every worker
// process; this package registers its own at init, as the SDK requires.
package pipeline
