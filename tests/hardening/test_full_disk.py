"""A write that fails (a full disk) is one line naming the file, exit code 2."""

import errno

import pytest
from click.testing import CliRunner

from obliq_cli.cli import main
from obliq_cli.experiment import results


@pytest.mark.parametrize("step,file", [("row appended", "runs.csv"),
                                       ("write meta.json (temporary)", "meta.json"),
                                       ("write test-iris.npz (temporary)", "test-iris.npz")])
def test_a_full_disk_names_the_file(test_config, tmp_path, monkeypatch, step, file):
    def full(name):
        if name == step:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(results, "_step", full)
    result = CliRunner().invoke(main, ["run", str(test_config()), "--no-progress"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert lines[0].endswith(f"{file}: No space left on device"), lines[0]
    assert str(tmp_path / "results" / "tiny") in lines[0]
