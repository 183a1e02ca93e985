// Package sim predicts how a row-key design and its pre-split keys spread
// writes over the regions of an HBase table, before the table exists: the
// region-distribution simulator of seed 003, and the beginnings of its
// "emulation" (memstore flushes and region splits over time).
//
// A Source is a stream of writes to a table, each an encoded row key with
// its record time and size. Sources come from any typed table and
// Generator (FromTable, FromIndex; package seeds/seedsim generates the
// seeds' workloads, the SMS store's among them), or from a list of
// sampled keys (FromKeys). Simulate runs a source through a Simulator,
// which
//
//   - assigns each key to its pre-split region by binary search over the
//     split keys and reports rows, bytes and share per region and the
//     max/mean skew;
//   - cuts the time window into slices and reports which regions took the
//     writes of each slice: an even design keeps every region busy in
//     every slice, a monotonically increasing key shows one hot region per
//     slice even when its total looks even;
//   - optionally emulates growth: each region counts memstore flushes and
//     splits at the median of a sample of its keys when it grows past a
//     size (or row) threshold, constant or with HBase 2's stepping policy
//     (WithSteppingSplit), and the report lists the split timeline and the
//     regions at the end. The sample is a hash-threshold sample, uniform
//     over a region's rows however they arrived, which a split divides
//     between the daughters exactly;
//   - estimates the load of K region servers holding the regions
//     round-robin in key order (equal region counts, the state HBase's
//     balancer aims for).
//
// A Report renders as an aligned terminal table with text bars
// (WriteText), as JSON, and as a hand-written SVG bar chart (WriteSVG,
// WriteHTML). Compare sets a simulation beside a measurement of the live
// table (a Report built by the hbkit regions command) region by region.
//
// The generators are deterministic for a given Config: the SMS demo loads
// the same messages the simulator predicted, so simulated and measured
// distributions can be compared. The simulator encodes into reused
// buffers and allocates nothing per write: ten million SMS keys take about
// four seconds of CPU (BenchmarkSimulate10M; hbkit simulate --schema sms
// --records 10000000).
//
// # Who should use it
//
// Table designers choosing a row key and split points, the hbkit simulate
// and regions commands, and load generators that want realistic records.
//
// # Who should not
//
// It does not talk to HBase (it imports keys and schema only) and it is a
// model, not HBase: splits happen at the sampled median rather than at a
// store file's midkey, sizes are uncompressed KeyValue sizes, and the
// balancer is idealised. Measure the live table to confirm.
package sim
