"""Tests the Harbor adapter (lathe_agent.py) without Harbor, which is not
installed here: a stand-in for the few Harbor classes it uses, and a
stand-in environment that runs the adapter's commands with bash in a
directory standing for the task's container (its absolute paths /logs,
/installed-agent and /usr/local/bin mapped under it). LATHE_BINARY is a
real lathe; LATHE_SERVER a model server it can reach (harbor_test.go
starts a fake Ollama). What this does not exercise: Harbor itself (its
trial loop, Docker, the verifier), and a container's own filesystem.

    python3 -m unittest test_lathe_agent      (from this directory)
"""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
from dataclasses import dataclass
from pathlib import Path


def install_harbor_stand_in():
    """The parts of Harbor's API the adapter uses, as Harbor defines them
    (agents/installed/base.py, models/agent/context.py)."""

    @dataclass
    class ExecInput:
        command: str
        cwd: str = None
        env: dict = None
        timeout_sec: int = None

    class AgentContext:
        n_input_tokens = None
        n_cache_tokens = None
        n_output_tokens = None
        cost_usd = None
        metadata = None

    class BaseInstalledAgent:
        def __init__(self, logs_dir, prompt_template_path=None, version=None, model_name=None, **kwargs):
            self.logs_dir = Path(logs_dir)
            self.model_name = model_name

        async def setup(self, environment):
            # Harbor renders the template with Jinja; this one has no variables.
            await environment.exec(command="mkdir -p /installed-agent")
            script = self.logs_dir / "install.sh"
            script.write_text(self._install_agent_template_path.read_text())
            await environment.upload_file(source_path=script, target_path="/installed-agent/install.sh")
            result = await environment.exec(command="bash /installed-agent/install.sh")
            if result.return_code != 0:
                raise RuntimeError(f"install failed: {result.stdout} {result.stderr}")

        async def run(self, instruction, environment, context):
            for i, e in enumerate(self.create_run_agent_commands(instruction)):
                result = await environment.exec(command=e.command, cwd=e.cwd, env=e.env, timeout_sec=e.timeout_sec)
                (self.logs_dir / f"command-{i}").mkdir(parents=True, exist_ok=True)
                (self.logs_dir / f"command-{i}" / "return-code.txt").write_text(str(result.return_code))
            self.populate_context_post_run(context)

    base = types.ModuleType("harbor.agents.installed.base")
    base.BaseInstalledAgent, base.ExecInput = BaseInstalledAgent, ExecInput
    context = types.ModuleType("harbor.models.agent.context")
    context.AgentContext = AgentContext
    for name in ["harbor", "harbor.agents", "harbor.agents.installed", "harbor.models", "harbor.models.agent"]:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["harbor.agents.installed.base"] = base
    sys.modules["harbor.models.agent.context"] = context
    return AgentContext


AgentContext = install_harbor_stand_in()
from lathe_agent import Lathe  # noqa: E402


@dataclass
class ExecResult:
    return_code: int
    stdout: str
    stderr: str


class StandInEnvironment:
    """Harbor's BaseEnvironment, as far as the adapter uses it, over a
    directory: /logs/agent is the agent's logs directory on the host, as
    Harbor mounts it."""

    def __init__(self, root, logs_dir):
        self.root = Path(root)
        self.logs_dir = Path(logs_dir)
        self.commands = []
        self.uploads = []
        for d in ["app", "installed-agent", "usr/local/bin"]:
            (self.root / d).mkdir(parents=True, exist_ok=True)

    def host_path(self, path):
        return re.sub(r"(?<![\w./])(/logs/agent|/installed-agent|/usr/local/bin)(?=/|\s|$|['\"])",
                      lambda m: str({"/logs/agent": self.logs_dir,
                                     "/installed-agent": self.root / "installed-agent",
                                     "/usr/local/bin": self.root / "usr/local/bin"}[m.group(1)]), path)

    async def upload_file(self, source_path, target_path):
        """Copies a file in; a script's own container paths are mapped too."""
        self.uploads.append(target_path)
        dest = self.host_path(target_path)
        try:
            Path(dest).write_text(self.host_path(Path(source_path).read_text()))
            shutil.copymode(source_path, dest)
        except UnicodeDecodeError:
            shutil.copy(source_path, dest)

    async def exec(self, command, cwd=None, env=None, timeout_sec=None):
        self.commands.append((command, env))
        full_env = dict(os.environ, PATH=f"{self.root / 'usr/local/bin'}:{os.environ['PATH']}", **(env or {}))
        p = subprocess.run(["bash", "-c", self.host_path(command)], cwd=cwd or self.root / "app", env=full_env,
                           capture_output=True, text=True, timeout=timeout_sec or 120)
        return ExecResult(p.returncode, p.stdout, p.stderr)


class LatheAgentTest(unittest.TestCase):
    def setUp(self):
        if not os.environ.get("LATHE_BINARY") or not os.environ.get("LATHE_SERVER"):
            self.skipTest("LATHE_BINARY and LATHE_SERVER are not set (go test ./scripts/harbor/ sets them)")
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.logs = Path(self.tmp) / "agent-logs"
        self.logs.mkdir()
        self.env = StandInEnvironment(Path(self.tmp) / "container", self.logs)

    def test_commands(self):
        agent = Lathe(self.logs, model_name="ollama/qwen3:8b")
        cmds = agent.create_run_agent_commands("fix it; don't 'quote'")
        self.assertEqual(cmds[1].env, {"OLLAMA_HOST": os.environ["LATHE_SERVER"]})
        self.assertIn("lathe -p 'fix it; don'\"'\"'t '\"'\"'quote'\"'\"'' --yes --output-format json "
                      "--trajectory /logs/agent/trajectory.json --sandbox off -m qwen3:8b", cmds[1].command)
        openai = Lathe(self.logs, model_name="openai/qwen3-coder", server="http://gpu:8080/v1")
        cmd = openai.create_run_agent_commands("x")[1]
        self.assertIn("-m qwen3-coder --provider openai --base-url http://gpu:8080/v1", cmd.command)
        self.assertNotIn("OLLAMA_HOST", cmd.env)
        self.assertEqual(Lathe.name(), "lathe")

    def test_trial(self):
        """setup then run, as a Harbor trial does: lathe copied in, run on the
        instruction against the server, its trajectory and tokens reported."""
        agent = Lathe(self.logs, model_name="ollama/qwen3:8b")
        context = AgentContext()

        async def trial():
            await agent.setup(self.env)
            await agent.run("create hello.txt containing hi", self.env, context)

        asyncio.run(trial())
        self.assertEqual(self.env.uploads, ["/installed-agent/lathe", "/installed-agent/install.sh"])
        self.assertEqual((self.env.root / "app" / "hello.txt").read_text(), "hi\n")
        self.assertEqual((self.logs / "command-1" / "return-code.txt").read_text(), "0")
        trajectory = json.loads((self.logs / "trajectory.json").read_text())
        self.assertEqual(trajectory["schema_version"], "ATIF-v1.6")
        self.assertEqual(trajectory["agent"]["name"], "lathe")
        self.assertEqual([s["source"] for s in trajectory["steps"]], ["user", "agent", "agent"])
        self.assertEqual(trajectory["steps"][1]["tool_calls"][0]["function_name"], "write_file")
        self.assertGreater(context.n_input_tokens, 0)
        self.assertGreater(context.n_output_tokens, 0)
        self.assertEqual(context.n_input_tokens, trajectory["final_metrics"]["total_prompt_tokens"])
        self.assertEqual(context.metadata["stop_reason"], "done")

    def test_missing_binary(self):
        agent = Lathe(self.logs, model_name="ollama/m", binary=str(Path(self.tmp) / "nowhere"))
        with self.assertRaisesRegex(FileNotFoundError, "set LATHE_BINARY"):
            asyncio.run(agent.setup(self.env))


if __name__ == "__main__":
    unittest.main()
