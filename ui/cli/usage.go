package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/pflag"
)

const usage = `lathe: a coding assistant for models you run yourself

Usage:
  lathe [flags]                    the interactive UI in the working directory
  lathe -p TEXT [flags]            one-shot: run the request, print the answer
  lathe sessions [--json] [--all]  list the saved sessions of the directory
  lathe sessions rm ID...          remove sessions (a unique id prefix will do)
  lathe sessions prune --older-than AGE [--all] [--dry-run]
                                   remove the sessions not updated for AGE
  lathe sessions search WORDS... [--json] [--all]
                                   find the saved messages holding WORDS
  lathe memory list [--json] [--all]
                                   the facts remembered about the directory
  lathe memory rm ID...            forget facts
  lathe index                      build or bring up to date the directory's
                                   semantic code index (needs an embedding
                                   model: ollama pull embeddinggemma)
  lathe undo [--continue | --session ID] [--list] [--yes] [--force]
                                   take back the file changes of a session's
                                   last request (default: the latest session)
  lathe doctor [--json]            check the server, models, sandbox and setup
  lathe context [--continue | --resume ID]
                                   how the context window is used
  lathe eval SUITE | --builtin [-m M1,M2] [--repeat N] [--jobs N]
             [--sandbox MODE]      run a suite of tasks against models (the
                                   model lathe would use, without -m)
  lathe eval show [ID] [--json | --csv]
                                   an experiment's results (the latest)
  lathe eval compare A B           what changed from experiment A to B
  lathe eval resume [ID]           run what an experiment left unrun
  lathe eval validate DIR [--json] check that each task's check passes its
                                   reference solution and fails its
                                   starting files
  lathe eval import JOBDIR         read a Harbor job's results as an
                                   experiment
  lathe mcp list [--json]          the MCP servers and their tools
  lathe mcp login NAME             authorize lathe with the HTTP MCP server
                                   NAME (OAuth, in the browser: $BROWSER,
                                   else the system's) and keep its tokens
  lathe mcp logout NAME            delete the tokens kept for NAME
  lathe hooks list [--json]        the hooks configured, and where from
  lathe skills list [--json]       the skills found, and what their list
                                   takes of the prompt
  lathe acp [-m M] [--yes] [--mode MODE] [--sandbox MODE]
                                   an Agent Client Protocol agent on stdin
                                   and stdout, for an editor (Zed,
                                   JetBrains, Neovim, Emacs) to start
  lathe help, lathe --help         show this help
  lathe --version                  print the version

Flags:
  -p, --prompt TEXT        the request; "-" reads it from stdin, and piped
                           stdin is appended to it
  -m, --model NAME         model (default: config, else an installed local
                           model with tool support)
  -C, --dir DIR            working directory (default: the current one)
      --yes                approve every tool call without asking
      --max-turns N        model calls per request (default 10)
      --output-format FMT  text (default), json or stream-json (with -p)
      --continue           continue the latest session of the directory
      --resume ID          continue session ID (a unique prefix will do),
                           in the directory it was saved in
      --mode MODE          start in build (default), plan or ask mode; with
                           -p, plan mode prints the plan and stops, unless
                           --yes carries it out
      --sandbox MODE       how commands are confined: workspace-write
                           (default), read-only or off
      --provider NAME      ollama (default) or openai: an OpenAI-compatible
                           server (llama.cpp, LM Studio, vLLM, SGLang)
      --base-url URL       the server: for openai its API root, such as
                           http://127.0.0.1:8080/v1; for ollama, over
                           OLLAMA_HOST
      --image PATH         attach an image for a vision model (PNG, JPEG,
                           WebP, GIF); repeat it for more (with -p)
      --trust-project-mcp  start the MCP servers the project declares
                           (.lathe/config.toml, .mcp.json) for this run
      --trust-project-lsp  start the language servers the project declares
                           (.lathe/config.toml, .lsp.json) for this run
      --trajectory FILE    write the run to FILE as an ATIF trajectory
                           (Harbor's format; with -p)
      --demo               try lathe with a demo model that needs no
                           server, in a sample project
      --trust-project-hooks
                           run the hooks that wait for trust, for this
                           run: the project's (.lathe/config.toml,
                           .claude/settings.json) and yours that run
                           its files
  -h, --help               show this help
      --version            print the version

Flags of lathe sessions and lathe memory:
      --json               a JSON array instead of a table
      --all                every directory, not only the working one
      --older-than AGE     prune: not updated for AGE (30d, 12h, 90m)
      --dry-run            prune: list what would be removed, remove nothing

Flags of lathe eval:
      --builtin            the built-in suite of twelve tasks
      --repeat N           attempts per task and model (default 1)
      --jobs N             attempts run at once (default 1)
      --csv                show: every attempt as CSV (--json: as JSON)
      --html FILE          show, compare: the charts as a page, too

Flags of lathe undo, doctor, mcp, hooks and skills:
      --session ID         undo: that session (a unique prefix will do)
      --list               undo: list the runs that can be undone
      --yes                undo: do not ask first
      --force              undo: overwrite files changed since the run
      --json               doctor, mcp list, hooks list, skills list: JSON
      --trust-project-mcp  mcp list, mcp login: the project's servers too

Exit codes of -p: 0 done (or a plan printed), 1 failure, 2 usage or config
error, 3 stopped by a limit, 130 interrupted. The interactive UI exits 0,
or 1 or 2 when it cannot start.

Environment:
  OLLAMA_HOST      the Ollama server (default 127.0.0.1:11434)
  api_key_env      (a config key) names the variable holding the API key
                   of an OpenAI-compatible server
  LATHE_MODEL      the model, over the config files
  LOG_LEVEL        debug, info, warn (default) or error
  NO_COLOR         no colour
  XDG_CONFIG_HOME  where your config is (default ~/.config)
  XDG_DATA_HOME    where sessions and MCP tokens are kept (default
                   ~/.local/share)
  BROWSER          the browser lathe mcp login opens
  XDG_STATE_HOME   where the interactive UI logs (default ~/.local/state)

Files:
  $XDG_CONFIG_HOME/lathe/config.toml  your config
  .lathe/config.toml                  the project's config, over yours; it
                                      may tighten limits, never approve
  .mcp.json                           the project's MCP servers (Claude
                                      Code's file), started once trusted
  .claude/settings.json               the project's hooks (Claude Code's
                                      file), run once trusted
  AGENTS.md                           the project's instructions to the model
  $XDG_DATA_HOME/lathe/lathe.db       the saved sessions, facts and code indexes
  $XDG_DATA_HOME/lathe/mcp-oauth/     the MCP servers' OAuth tokens (yours only)
  $XDG_STATE_HOME/lathe/lathe.log     the interactive UI's log, and lathe acp's
`

// subcommands are lathe's commands, in the order the help and the
// errors name them.
var subcommands = []subcommand{
	{"", newSession},
	{"sessions", newSessionsList},
	{"sessions rm", newSessionsRm},
	{"sessions prune", newSessionsPrune},
	{"sessions search", newSessionsSearch},
	{"memory list", newMemoryList},
	{"memory rm", newMemoryRm},
	{"index", newIndex},
	{"undo", newUndo},
	{"doctor", newDoctor},
	{"context", newContext},
	{"eval", newEvalRun},
	{"eval show", newEvalShow},
	{"eval compare", newEvalCompare},
	{"eval resume", newEvalResume},
	{"eval validate", newEvalValidate},
	{"eval import", newEvalImport},
	{"mcp list", newMCPList},
	{"mcp login", newMCPLogin},
	{"mcp logout", newMCPLogout},
	{"hooks list", newHooksList},
	{"skills list", newSkillsList},
	{"acp", newACP},
	{"help", func(f *Factory) command { return helpCommand{f} }},
}

// helpCommand is lathe help, and --help: the usage.
type helpCommand struct{ f *Factory }

func (helpCommand) define(*pflag.FlagSet)      {}
func (helpCommand) words([]string) error       { return nil }
func (helpCommand) check(*pflag.FlagSet) error { return nil }

func (c helpCommand) run(context.Context) error {
	_, err := io.WriteString(c.f.Out, usage)
	return err
}

// versionCommand is --version.
type versionCommand struct{ f *Factory }

func (versionCommand) define(*pflag.FlagSet)      {}
func (versionCommand) words([]string) error       { return nil }
func (versionCommand) check(*pflag.FlagSet) error { return nil }

func (c versionCommand) run(context.Context) error {
	_, err := fmt.Fprintln(c.f.Out, versionLine(debug.ReadBuildInfo()))
	return err
}
