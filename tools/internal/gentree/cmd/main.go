// Command cmd writes a generated tree (package gentree) into a directory,
// for scripts/gentree.sh:
//
//	go run ./tools/internal/gentree/cmd [-files N] [-layout small|monorepo] [-seed S] DIR
//
// DIR must be empty or missing, or hold a tree generated before, which is
// kept if it was made with the same parameters and made again otherwise.
package main

import (
	"flag"
	"fmt"
	"os"

	"lathe/tools/internal/gentree"
)

func main() {
	files := flag.Int("files", 500000, "about how many files")
	layout := flag.String("layout", string(gentree.Monorepo), "small or monorepo")
	seed := flag.Uint64("seed", 0, "another seed gives another tree of the same shape")
	flag.Parse()
	if flag.NArg() != 1 || (*layout != string(gentree.Small) && *layout != string(gentree.Monorepo)) {
		fmt.Fprintln(os.Stderr, "usage: gentree [-files N] [-layout small|monorepo] [-seed S] DIR")
		os.Exit(2)
	}
	p := gentree.Params{Files: *files, Layout: gentree.Layout(*layout), Seed: *seed}
	if err := gentree.Ensure(flag.Arg(0), p); err != nil {
		fmt.Fprintln(os.Stderr, "gentree:", err)
		os.Exit(1)
	}
	fmt.Println(p)
}
