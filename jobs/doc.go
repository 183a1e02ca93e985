// Package jobs runs index builds, checks and table copies over whole
// tables, at cluster scale: the work is cut into units (key ranges taken
// from the regions of the tables a job reads), each unit keeps its
// checkpoint in HBase, and any number of workers, in one process or many,
// claim units, run them and resume a unit where a dead worker left it.
//
// Who uses it: the hbkit CLI (hbkit job), admin jobs that
// build a new index or move a table into a new key layout or more regions,
// and the Beam pipeline of contrib/beam, which runs the same units and
// checkpoints on Flink, Spark, Dataflow or Prism. Applications that read
// and write records use package dao, not this one.
//
// A job is described by a Spec (plain data, JSON): its kind (verify,
// repair, rebuild, build, copy, compare) and its tables, whose schema documents
// (stored with the tables, package admin) say how rows are encoded. NewTask
// turns a Spec into the Task that does the work of one unit. A Task that
// has a last step once every unit is done (an index built, made to answer)
// implements Finisher.
//
// Run (or RunTask, for a Task of one's own) plans the job or reads its
// plan from the Store, then runs the units of its Shard on its workers;
// RunUnit runs one unit and is what another engine's worker calls.
// docs/jobs.md describes units, checkpoints, leases, shards and re-splits.
package jobs
