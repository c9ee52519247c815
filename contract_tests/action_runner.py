"""Run the composite action's shell steps locally, the way the GitHub runner would, for tests.

A deliberately small model of the runner: each ``run:`` step is written to a file and executed with
``bash --noprofile --norc -eo pipefail FILE`` in the workspace, with the step's ``env:`` evaluated first. Expressions
support what action.yml uses: ``${{ a.b.c }}`` context look-ups and ``||`` (first non-empty operand). Every step gets a
fresh ``GITHUB_OUTPUT`` file whose ``name=value`` lines become ``steps.<id>.outputs``; all steps share one
``GITHUB_STEP_SUMMARY`` file. The first failing step stops the action and its exit code is the action's exit code.
Steps listed in ``skip`` (the pip install) are replaced by the outputs the caller provides.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parent.parent
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load_yaml(path: Path) -> Any:
    """Parse YAML 1.2 (so a workflow's ``on:`` stays a string key)."""
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def _lookup(context: dict[str, Any], dotted: str) -> str:
    value: Any = context
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return ""
        value = value[part]
    return "" if value is None else str(value)


def evaluate(text: str, context: dict[str, Any]) -> str:
    """Substitute every ``${{ ... }}`` in ``text`` (look-ups joined by ``||``; anything else is refused)."""
    def one(match: re.Match[str]) -> str:
        for operand in match.group(1).split("||"):
            operand = operand.strip()
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*", operand):
                raise ValueError("expression not supported by the local runner")
            value = _lookup(context, operand)
            if value:
                return value
        return ""
    return EXPRESSION.sub(one, text)


def _parse_outputs(path: Path) -> dict[str, str]:
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, marker = line.split("<<", 1)
            body = []
            i += 1
            while i < len(lines) and lines[i] != marker:
                body.append(lines[i])
                i += 1
            outputs[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        i += 1
    return outputs


@dataclass
class ActionRun:
    """What a local run of the action produced."""

    exit_code: int
    outputs: dict[str, str]
    summary: str
    stdout: str
    step_outputs: dict[str, dict[str, str]] = field(default_factory=dict)


def run_action(inputs: dict[str, str], workdir: Path, temp: Path, *, skip: dict[str, dict[str, str]] | None = None,
               action_path: Path = REPO) -> ActionRun:
    """Run action.yml's steps with ``inputs`` (defaults filled in) and return exit code, outputs and summary."""
    action = load_yaml(action_path / "action.yml")
    values = {name: str(spec.get("default", "")) for name, spec in action.get("inputs", {}).items()}
    values.update(inputs)
    steps: dict[str, dict[str, Any]] = {}
    context: dict[str, Any] = {
        "inputs": values,
        "github": {"action_path": str(action_path), "server_url": "https://github.com",
                   "repository": "example/nerb-verify", "sha": "0" * 40, "action_repository": "",
                   "action_ref": ""},
        "runner": {"temp": str(temp)},
        "steps": steps,
    }
    summary = temp / "step-summary.md"
    summary.write_text("", encoding="utf-8")
    stdout_parts: list[str] = []
    exit_code = 0
    for index, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id", f"step{index}")
        if skip and step_id in skip:
            steps[step_id] = {"outputs": dict(skip[step_id])}
            continue
        assert step.get("shell") == "bash", "every step runs in bash"
        script = temp / f"step-{index}.sh"
        script.write_text(evaluate(step["run"], context), encoding="utf-8")
        output_file = temp / f"output-{index}.txt"
        output_file.write_text("", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env["PYTHONPATH"] = str(REPO)
        env.update({k: evaluate(str(v), context) for k, v in (step.get("env") or {}).items()})
        env.update({"GITHUB_OUTPUT": str(output_file), "GITHUB_STEP_SUMMARY": str(summary),
                    "RUNNER_TEMP": str(temp)})
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workdir,
                              env=env, capture_output=True, text=True, timeout=300)
        stdout_parts.append(proc.stdout)
        steps[step_id] = {"outputs": _parse_outputs(output_file)}
        if proc.returncode != 0:
            exit_code = proc.returncode
            break
    outputs = {name: evaluate(str(spec["value"]), context) for name, spec in action.get("outputs", {}).items()}
    return ActionRun(exit_code, outputs, summary.read_text(encoding="utf-8"), "".join(stdout_parts),
                     {k: v["outputs"] for k, v in steps.items()})


def local_install() -> dict[str, dict[str, str]]:
    """Stand-in outputs for the install step: this interpreter, with the checkout on PYTHONPATH."""
    return {"install": {"python": sys.executable}}
