// Command funclen lists functions over N lines (and their cyclomatic complexity)
// and files over M lines in the non-test, non-generated Go files of the
// given directories.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func cx(n ast.Node) int {
	c := 1
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if x.List != nil {
				c++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

func main() {
	fl := flag.Int("func", 80, "function line limit")
	fil := flag.Int("file", 800, "file line limit")
	flag.Parse()
	type row struct {
		pos  string
		name string
		n, c int
	}
	var funcs []row
	var files []row
	for _, dir := range flag.Args() {
		ms, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range ms {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fs := token.NewFileSet()
			af, err := parser.ParseFile(fs, f, nil, parser.ParseComments)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if ast.IsGenerated(af) {
				continue
			}
			lines := fs.File(af.Pos()).LineCount()
			if lines > *fil {
				files = append(files, row{pos: f, n: lines})
			}
			ast.Inspect(af, func(n ast.Node) bool {
				var body *ast.BlockStmt
				name := ""
				switch x := n.(type) {
				case *ast.FuncDecl:
					body, name = x.Body, x.Name.Name
					if x.Recv != nil && len(x.Recv.List) > 0 {
						name = "(" + types(x.Recv.List[0].Type) + ")." + name
					}
				case *ast.FuncLit:
					body, name = x.Body, "func literal"
				}
				if body == nil {
					return true
				}
				s, e := fs.Position(n.Pos()), fs.Position(n.End())
				if l := e.Line - s.Line + 1; l > *fl {
					funcs = append(funcs, row{pos: fmt.Sprintf("%s:%d", f, s.Line), name: name, n: l, c: cx(n)})
				}
				return true
			})
		}
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].n > funcs[j].n })
	for _, r := range funcs {
		fmt.Printf("func %4d lines cx %3d  %s %s\n", r.n, r.c, r.pos, r.name)
	}
	for _, r := range files {
		fmt.Printf("file %4d lines  %s\n", r.n, r.pos)
	}
	fmt.Printf("%d functions over %d lines, %d files over %d lines\n", len(funcs), *fl, len(files), *fil)
}

func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + types(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return types(x.X)
	case *ast.IndexListExpr:
		return types(x.X)
	}
	return "?"
}
