"""lathe as a Harbor installed agent.

    harbor run -d terminal-bench@2.0 -m ollama/qwen3:8b \
        --agent-import-path lathe_agent:Lathe -n 4

with this directory on PYTHONPATH and LATHE_BINARY naming a lathe binary
built for the task containers (Linux, the containers' architecture; lathe
is one Go binary, copied in as it is). The model server is LATHE_SERVER
(default http://host.docker.internal:11434, the host's Ollama as a Docker
container reaches it). A model named openai/NAME runs on an
OpenAI-compatible server at LATHE_SERVER (its API root, .../v1).

lathe runs with --yes and --sandbox off: the task's container is the
sandbox. It writes its ATIF trajectory to /logs/agent/trajectory.json,
which Harbor keeps, and its JSON result to /logs/agent/lathe.json, from
which the token counts are reported.
"""

import json
import os
import shlex
from pathlib import Path

from harbor.agents.installed.base import BaseInstalledAgent, ExecInput
from harbor.models.agent.context import AgentContext

DEFAULT_SERVER = "http://host.docker.internal:11434"
BINARY_IN_CONTAINER = "/installed-agent/lathe"


class Lathe(BaseInstalledAgent):
    """lathe, copied into the task's container and run once per trial."""

    SUPPORTS_ATIF = True

    def __init__(self, logs_dir, *args, binary=None, server=None, sandbox="off", max_turns=None, **kwargs):
        super().__init__(logs_dir, *args, **kwargs)
        self._binary = Path(binary or os.environ.get("LATHE_BINARY", "lathe"))
        self._server = server or os.environ.get("LATHE_SERVER", DEFAULT_SERVER)
        self._sandbox = sandbox
        self._max_turns = max_turns

    @staticmethod
    def name() -> str:
        return "lathe"

    @property
    def _install_agent_template_path(self) -> Path:
        return Path(__file__).parent / "install-lathe.sh.j2"

    async def setup(self, environment) -> None:
        """Copies the binary in, then runs the install script (which puts it
        on PATH and prints its version)."""
        if not self._binary.is_file():
            raise FileNotFoundError(f"no lathe binary at {self._binary}: set LATHE_BINARY")
        await environment.exec(command="mkdir -p /installed-agent")
        await environment.upload_file(source_path=self._binary, target_path=BINARY_IN_CONTAINER)
        await super().setup(environment)

    def _model(self):
        """The provider and the model's name from Harbor's -m provider/name."""
        provider, _, name = (self.model_name or "").partition("/")
        if not name:
            return "ollama", provider
        return provider, name

    def create_run_agent_commands(self, instruction: str) -> list[ExecInput]:
        provider, model = self._model()
        argv = ["lathe", "-p", instruction, "--yes", "--output-format", "json",
                "--trajectory", "/logs/agent/trajectory.json", "--sandbox", self._sandbox]
        env = {}
        if model:
            argv += ["-m", model]
        if self._max_turns:
            argv += ["--max-turns", str(self._max_turns)]
        if provider == "openai":
            argv += ["--provider", "openai", "--base-url", self._server]
            key = os.environ.get("LATHE_API_KEY")
            if key:
                env["LATHE_API_KEY"] = key
        else:
            env["OLLAMA_HOST"] = self._server
        command = (" ".join(shlex.quote(a) for a in argv)
                   + " > /logs/agent/lathe.json 2> /logs/agent/lathe.stderr")
        return [ExecInput(command="mkdir -p /logs/agent"), ExecInput(command=command, env=env)]

    def populate_context_post_run(self, context: AgentContext) -> None:
        """Reports the tokens lathe counted, from its JSON result."""
        path = Path(self.logs_dir) / "lathe.json"
        try:
            lines = [l for l in path.read_text().splitlines() if l.strip()]
            result = json.loads(lines[-1])
        except (OSError, IndexError, ValueError):
            return
        usage = result.get("usage") or {}
        timing = result.get("timing") or {}
        context.n_input_tokens = usage.get("prompt_tokens")
        context.n_output_tokens = usage.get("completion_tokens")
        context.n_cache_tokens = timing.get("cached_tokens")
        context.metadata = {"stop_reason": result.get("stop_reason"), "turns": result.get("turns"),
                            "session_id": result.get("session_id")}
