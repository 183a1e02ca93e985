package dao

import "github.com/hbkit/hbkit/index"

// The vocabulary of Check, so that a store's user needs no other package:
// these are package index's types and values under the names users call.
type (
	// Mode is what Check does: ModeVerify, ModeRepair or ModeRebuild.
	Mode = index.Mode
	// Report counts what Check found and did.
	Report = index.Report
	// Skips counts the records Check left alone, by reason.
	Skips = index.Skips
	// Progress is what Check reports as it goes (WithProgress).
	Progress = index.Progress
	// Checkpoint is where a Check run stands, to resume it (WithCheckpoint,
	// WithResume).
	Checkpoint = index.Checkpoint
	// CheckOption configures one Check run.
	CheckOption = index.CheckOption
)

// Check modes.
const (
	// ModeVerify only reports.
	ModeVerify = index.ModeVerify
	// ModeRepair reports, then rewrites the records whose entries are
	// missing, unverified or stale and deletes dead orphans.
	ModeRepair = index.ModeRepair
	// ModeRebuild rewrites every record with its entries and deletes dead
	// orphans.
	ModeRebuild = index.ModeRebuild
)

// ParseMode parses "verify", "repair" or "rebuild".
func ParseMode(s string) (Mode, error) { return index.ParseMode(s) }

// WithProgress calls fn as Check advances.
func WithProgress(fn func(Progress)) CheckOption { return index.WithProgress(fn) }

// WithCheckpoint calls save after each batch with the position reached;
// an error from save stops the run.
func WithCheckpoint(save func(Checkpoint) error) CheckOption { return index.WithCheckpoint(save) }

// WithResume continues the run that saved cp. Its table and mode must be
// those of this run (ErrBadCheckpoint otherwise); a completed checkpoint
// starts a fresh run.
func WithResume(cp Checkpoint) CheckOption { return index.WithResume(cp) }

// The vocabulary of the protocol's steps, for WithHook and for the errors a
// write returns, under the names users call.
type (
	// Step is the point of a write at which the hook of WithHook runs.
	Step = index.Step
	// Phase is one write of the protocol, in order: PhaseUnverified,
	// PhaseData, PhaseVerify.
	Phase = index.Phase
	// Op is the kind of write a Step belongs to.
	Op = index.Op
	// StepError is a write that failed, or was aborted by the hook, at one
	// Step; it wraps the cause (ErrAborted for the hook).
	StepError = index.StepError
	// BuildingError is a read refused because its index is building
	// (ErrIndexBuilding).
	BuildingError = index.BuildingError
)

// The phases of a write, in order.
const (
	// PhaseUnverified writes the new index entries marked unverified.
	PhaseUnverified = index.PhaseUnverified
	// PhaseData writes (or deletes) the data row.
	PhaseData = index.PhaseData
	// PhaseVerify marks the new entries verified and deletes the old ones.
	PhaseVerify = index.PhaseVerify
)

// The kinds of write a Step belongs to.
const (
	// OpPut is a put (upsert), and a rewrite by Check.
	OpPut = index.OpPut
	// OpDelete is a delete.
	OpDelete = index.OpDelete
	// OpInsert is a put that fails with ErrExists over a live record.
	OpInsert = index.OpInsert
)

// Bookkeeping reports whether q is a qualifier the index protocol keeps in
// a data row or an index entry besides the record's columns (version,
// status, writer, recorded index keys and their history), the insert
// token (TokenQualifier) aside: tools that print raw rows (hbkit get and
// scan) leave them out.
func Bookkeeping(q string) bool { return index.Bookkeeping(q) }

// TokenQualifier is the qualifier of an insert's token in a data row.
const TokenQualifier = index.TokenQualifier
