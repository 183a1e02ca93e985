package schema

// RaceEnabled tells the external tests (package schema_test) whether the
// race detector is on.
const RaceEnabled = raceEnabled
