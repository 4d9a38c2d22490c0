// Package codeindex is the semantic index of a project's code: files cut
// into chunks that follow the code's structure, each with an embedding
// from the model server, kept in lathe's database and brought up to date
// file by file; and the search that ranks chunks by their vectors' cosine
// with the query's and by the query's words, together.
package codeindex

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"unicode/utf8"
)

// Chunk is a piece of a file: a Go declaration, or a block of lines.
type Chunk struct {
	Path   string // relative to the project, with slashes
	Start  int    // the first line, from 1
	End    int    // the last line, included
	Symbol string // the declaration's name ("Parse", "(*Lexer).Next"); "" for a block
	Text   string
}

// Chunks are cut to at most this many lines and bytes (about 500 tokens:
// an embedding model reads 2,048 or more), and files to at most maxChunks
// chunks.
const (
	maxChunkLines = 60
	maxChunkBytes = 2000
	minBlockLines = 8 // blocks shorter than this are joined to the next
	maxFileChunks = 400
)

// Split cuts a file's text into chunks: a Go file (one that parses) by its
// top-level declarations, each with its doc comment (the imports left
// out); any other text into blocks of lines separated by blank lines,
// small ones joined. A chunk longer than the limits is cut at line ends.
func Split(path string, src []byte) []Chunk {
	var chunks []Chunk
	if strings.HasSuffix(path, ".go") {
		chunks = splitGo(path, src)
	}
	if chunks == nil {
		chunks = splitBlocks(path, src)
	}
	return chunks[:min(len(chunks), maxFileChunks)]
}

// lines are src's lines, without their line ends.
func lines(src []byte) []string {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// splitGo cuts Go source by its declarations; nil when it does not parse.
func splitGo(path string, src []byte) []Chunk {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	all := lines(src)
	var out []Chunk
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		start, end := d.Pos(), d.End()
		if doc := declDoc(d); doc != nil {
			start = doc.Pos()
		}
		first, last := fset.Position(start).Line, fset.Position(end).Line
		out = append(out, cut(Chunk{Path: path, Start: first, End: last, Symbol: declName(d)}, all)...)
	}
	return out
}

func declDoc(d ast.Decl) *ast.CommentGroup {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}

// declName is a declaration's name: a function's, with its receiver's
// type for a method; the first name a type, var or const group declares.
func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) == 0 {
			return d.Name.Name
		}
		return "(" + typeName(d.Recv.List[0].Type) + ")." + d.Name.Name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				return s.Name.Name
			case *ast.ValueSpec:
				if len(s.Names) > 0 {
					return s.Names[0].Name
				}
			}
		}
	}
	return ""
}

func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + typeName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	}
	return "?"
}

// splitBlocks cuts text into blocks separated by blank lines, joining a
// block shorter than minBlockLines to the next while the limits allow.
func splitBlocks(path string, src []byte) []Chunk {
	all := lines(src)
	var out []Chunk
	cur := Chunk{Path: path}
	size := 0
	flush := func() {
		if cur.Start > 0 {
			out = append(out, cut(cur, all)...)
		}
		cur, size = Chunk{Path: path}, 0
	}
	for i := 0; i < len(all); {
		if strings.TrimSpace(all[i]) == "" {
			i++
			continue
		}
		j, n := i, 0
		for j < len(all) && strings.TrimSpace(all[j]) != "" {
			n += len(all[j]) + 1
			j++
		}
		// The block is lines i+1 to j (from 1).
		if cur.Start > 0 && (j-cur.Start+1 > maxChunkLines || size+n > maxChunkBytes) {
			flush()
		}
		if cur.Start == 0 {
			cur.Start = i + 1
		}
		cur.End, size = j, size+n
		if cur.End-cur.Start+1 >= minBlockLines {
			flush()
		}
		i = j
	}
	flush()
	return out
}

// cut fills in c's text from all and cuts it where it passes the limits,
// at line ends (a single line longer than maxChunkBytes is cut short).
func cut(c Chunk, all []string) []Chunk {
	c.End = min(c.End, len(all))
	var out []Chunk
	for start := c.Start; start <= c.End; {
		var b bytes.Buffer
		end := start
		for end <= c.End && end-start < maxChunkLines {
			line := all[end-1]
			if b.Len() > 0 && b.Len()+len(line)+1 > maxChunkBytes {
				break
			}
			if len(line) > maxChunkBytes {
				line = clip(line, maxChunkBytes)
			}
			b.WriteString(line)
			b.WriteByte('\n')
			end++
		}
		piece := c
		piece.Start, piece.End, piece.Text = start, end-1, b.String()
		out = append(out, piece)
		start = end
	}
	return out
}

// clip cuts s to at most n bytes, never inside a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
