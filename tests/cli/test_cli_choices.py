"""The command line's choices are declarations, never lists written in cli.py: every
``click.Choice`` of every command (groups walked down to their leaves) lists exactly
what the module that owns the concept declares, and cli.py passes no literal list to
``click.Choice``."""

import ast
from pathlib import Path

import click
import click.shell_completion

from obliq_cli import cli, registry
from obliq_cli.data.files import DECIMAL_MARKS
from obliq_cli.data.preprocess import MISSING_POLICIES, NOMINAL_RULES
from obliq_cli.report.render import FORMATS, LAYOUTS, LISTING_FORMATS

# (command path, parameter name) -> its declaration; a parameter name alone for every
# command that has it
DECLARATIONS = {
    "fmt": FORMATS,
    ("datasets list", "fmt"): LISTING_FORMATS,
    "backend": registry.BACKENDS,
    "layout": LAYOUTS,
    "missing": MISSING_POLICIES,
    "nominal": NOMINAL_RULES,
    "decimal": DECIMAL_MARKS,
    "shell": tuple(click.shell_completion._available_shells),
}


def commands(group, path=()):
    """(path, command) of every command below ``group``, groups included."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def test_every_choice_list_is_its_declaration():
    seen = set()
    for path, command in commands(cli.main):
        for param in command.params:
            if not isinstance(param.type, click.Choice):
                continue
            key = (" ".join(path), param.name)
            declared = DECLARATIONS.get(key, DECLARATIONS.get(param.name))
            assert declared is not None, f"obliq {key[0]} {param.name}: no declaration"
            assert tuple(param.type.choices) == tuple(declared), key
            seen.add(key)
    # the walk reached the commands of every kind of choice
    assert {("run", "backend"), ("table", "layout"), ("stats", "fmt"),
            ("datasets list", "fmt"), ("datasets show", "missing"), ("fit", "nominal"),
            ("predict", "decimal"), ("plot tree", "decimal"), ("plot boundary", "missing"),
            ("completion", "shell")} <= seen


def test_cli_py_writes_no_choice_list_by_hand():
    tree = ast.parse(Path(cli.__file__).read_text(encoding="utf-8"))
    literal = (ast.List, ast.Tuple, ast.Set, ast.Constant)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "Choice" and node.args):
            assert not isinstance(node.args[0], literal), f"cli.py:{node.lineno}"
    # and the declared ones name real declarations
    for name in cli.DECLARED:
        assert cli._DeclaredChoice(name).choices


def test_a_declared_choice_still_refuses_what_it_does_not_list():
    from click.testing import CliRunner

    result = CliRunner().invoke(cli.main, ["fit", "--data", "x.csv", "--missing", "skip",
                                           "--algorithm", "cart-ap", "-o", "m.json"])
    assert result.exit_code == 2
    assert "'skip' is not one of 'error', 'drop', 'impute', 'native'" in result.output
