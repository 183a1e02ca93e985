package seeds_test

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
)

// coreDirs are the library's core: the packages (with every package below
// them) that must not name a seed.
var coreDirs = []string{"keys", "schema", "hbase", "internal", "index", "dao", "admin"}

// flatDirs must not name a seed either, but the packages below them may:
// package cli takes the seeds like any schema, through cli.Env, while
// cli/clitest's scenarios run the commands on them.
var flatDirs = []string{"cli"}

// notSeeds are mentions of a seed's name that mean something else, by
// file: HBase's PerformanceEvaluation calls its table TestTable too.
var notSeeds = map[string]string{"cli/bench.go": "TestTable"}

// seedPackages are the packages the seeds live in; every name they export
// is a seed's.
var seedPackages = []string{"seeds", "seeds/seedstore", "seeds/seedsim"}

// genericNames are names the seed packages export that are ordinary words
// of other code ("User" of a Kerberos principal, cli.Env.Workloads): they count
// only when qualified with a package name, as in schema.User.
var genericNames = []string{"Builtin", "BuiltinNames", "DayCount", "Order", "RecordType", "User", "Workloads"}

// seedNames returns, in one place, what a core package must not name: the
// identifiers of the seed packages and the names of the seeds' tables.
func seedNames(t *testing.T, root string) (idents map[string]bool, tables []string) {
	t.Helper()
	idents = map[string]bool{}
	for _, dir := range seedPackages {
		for _, name := range exportedNames(t, filepath.Join(root, dir)) {
			idents[name] = true
		}
	}
	tables = append(seeds.BuiltinNames(), seeds.LogTypesName, seeds.LogDataUIDName, seedsim.NaiveSMSTableName)
	return idents, tables
}

// exportedNames returns the exported top-level names of the package in
// dir, tests aside.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var names []string
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			names = append(names, declared(d)...)
		}
	}
	return names
}

// declared returns the exported names d declares at package level.
func declared(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch spec := spec.(type) {
			case *ast.TypeSpec:
				names = append(names, spec.Name.Name)
			case *ast.ValueSpec:
				for _, n := range spec.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return slices.DeleteFunc(names, func(n string) bool { return !ast.IsExported(n) })
}

// TestCoreNamesNoSeed: the seeds are users of the library, so no non-test
// Go file of a core package, nor of package cli, names one: no identifier of a seed package
// (SMS, SMSTable, ValidateSMS, LogEvent, schema.User ...), in code or in a
// comment, and no seed table name ("sms", "TestTable", "customer_order"
// ...) in a string or a comment.
func TestCoreNamesNoSeed(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	idents, tables := seedNames(t, root)
	var words []string
	for name := range idents {
		if !slices.Contains(genericNames, name) {
			words = append(words, regexp.QuoteMeta(name))
		}
	}
	for _, name := range genericNames {
		words = append(words, `(?:schema|dao|sim|seeds|seedstore|seedsim)\.`+name)
	}
	for _, name := range tables {
		words = append(words, regexp.QuoteMeta(name))
	}
	slices.Sort(words)
	seed := regexp.MustCompile(`(?:^|[^\w])(` + strings.Join(words, "|") + `)(?:$|[^\w])`)
	check := func(path string) {
		rel, _ := filepath.Rel(root, path)
		for _, hit := range seedMentions(t, path, seed) {
			if name, ok := notSeeds[filepath.ToSlash(rel)]; !ok || !strings.HasSuffix(hit, " "+name) {
				t.Errorf("%s:%s", rel, hit)
			}
		}
	}
	for _, dir := range coreDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isSource(path) {
				check(path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range flatDirs {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, path := range files {
			if isSource(path) {
				check(path)
			}
		}
	}
}

// isSource reports whether path is a non-test Go file.
func isSource(path string) bool {
	return strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
}

// seedMentions returns where the identifiers, strings and comments of
// the Go file at path match seed, as "line: token".
func seedMentions(t *testing.T, path string, seed *regexp.Regexp) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, nil, scanner.ScanComments)
	var hits []string
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return hits
		}
		switch tok {
		case token.IDENT, token.STRING, token.COMMENT:
			if m := seed.FindStringSubmatch(lit); m != nil {
				hits = append(hits, strconv.Itoa(fset.Position(pos).Line)+": names "+m[1])
			}
		}
	}
}
