package config

import (
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyPosition finds the line and column where a dotted key is set in a
// TOML document, or 0, 0 when it is not found.
func keyPosition(data []byte, key string) (line, col int) {
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
			if strings.Join(table, ".") == key {
				return start(&p, e)
			}
		case unstable.KeyValue:
			k := append(table[:len(table):len(table)], keyParts(e.Key())...)
			if strings.Join(k, ".") == key {
				return start(&p, e)
			}
		}
	}
	return 0, 0
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// start is where an expression's key begins.
func start(p *unstable.Parser, e *unstable.Node) (line, col int) {
	it := e.Key()
	it.Next()
	pos := p.Shape(it.Node().Raw).Start
	return pos.Line, pos.Column
}
