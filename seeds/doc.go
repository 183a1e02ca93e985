// Package seeds declares the tables of the project's seeds (the design
// notes hbkit grew from) with the public API of package schema, as any
// team declares its own: seed 000's SMS store (SMSTable, ValidateSMS),
// seed 001's TestTable and its inverted index, seed 004's LOG_DATA
// variants (LogDataBucketed, LogDataByHost, LogDataMD5, LogDataUID, the
// wide LogDataWide and the UID table LogTypes) and its CUSTOMER++ and
// ORDER tables. Builtin and BuiltinNames find them by table name.
//
// The seeds are examples of the library, not part of it: no core package
// (keys, schema, hbase, index, dao, admin) names them, which
// TestCoreNamesNoSeed checks. The seeds live in four packages, each
// importing only what it needs, so that the tests of the packages below
// use them without an import cycle (schema's own tests that use them are
// package schema_test; cli's register them with a helper of their own,
// as seedcli imports cli):
//
//   - seeds (this package) imports only keys and schema;
//   - seeds/seedstore is the SMS store over package dao (SMSRepo);
//   - seeds/seedsim generates their workloads for package sim;
//   - seeds/seedcli registers them in the hbkit commands (package cli),
//     the way a team registers its own schemas.
//
// # Who should use it
//
// hbkit's own tests, examples, benchmarks and the hbkit binary; readers
// who want a complete declaration to copy.
//
// # Who should not
//
// Production code of a team with its own tables: declare them, as these
// files do, in a package of your own.
package seeds
