// Command mdscript writes a fake Ollama server's script whose one reply is
// a generated markdown answer of about SIZE bytes (see mdgen.Answer), for
// measuring the TUI while it streams:
//
//	mdscript SIZE > script.json
//
// It prints on stderr how many chunks the fake will stream it in.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/ui/markdown/mdgen"
)

func main() {
	size, err := strconv.Atoi(os.Args[len(os.Args)-1])
	if len(os.Args) != 2 || err != nil || size <= 0 {
		fmt.Fprintln(os.Stderr, "usage: mdscript SIZE")
		os.Exit(2)
	}
	answer, _ := mdgen.Answer(size)
	if err := json.NewEncoder(os.Stdout).Encode([]ollamatest.Reply{{Content: answer}}); err != nil {
		fmt.Fprintln(os.Stderr, "mdscript:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, len(ollamatest.SplitPieces(answer)))
}
