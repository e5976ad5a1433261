"""Own-file cases on the command line that once ended in a traceback or disagreed
between fit and predict: each is now a clean error or a correct result."""

import json

from click.testing import CliRunner

from obliq_cli.cli import main

ROWS = "a,b,c,y\n1,2,x,0\n2,,y,1\n3,4,x,0\n4,5,y,1\n5,1,x,1\n6,2,y,0\n"


def _run(args, cwd):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _fit(tmp_path, *extra):
    data = tmp_path / "d.csv"
    data.write_text(ROWS)
    model = tmp_path / "m.json"
    result = _run(["fit", "--data", data, "--target", "y", "--categorical", "c",
                   "--missing", "impute", "--algorithm", "cart-ap", "-o", model, *extra],
                  tmp_path)
    assert result.exit_code == 0, result.output
    return data, model


def test_a_two_character_delimiter_at_predict_is_a_clean_error(tmp_path):
    data, model = _fit(tmp_path)
    result = _run(["predict", model, data, "--delimiter", ";;"], tmp_path)
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith(
        f"error: {data}: delimiter ';;': must be one of")


def test_a_nominal_column_declared_twice_is_one_column_at_fit_and_predict(tmp_path):
    data, once = _fit(tmp_path)
    twice = tmp_path / "twice.json"
    _run(["fit", "--data", data, "--target", "y", "--categorical", "c", "--categorical", "c",
          "--missing", "impute", "--algorithm", "cart-ap", "-o", twice], tmp_path)
    a = _run(["predict", once, data], tmp_path)
    b = _run(["predict", twice, data], tmp_path)
    assert a.exit_code == b.exit_code == 0, b.output
    assert a.output == b.output
    assert json.loads(once.read_text())["preprocess"] == json.loads(twice.read_text())["preprocess"]


def test_datasets_show_keeps_the_levels_of_a_column_declared_twice(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text(ROWS)
    result = _run(["datasets", "show", "--data", data, "--target", "y", "--categorical", "c",
                   "--categorical", "c", "--missing", "impute"], tmp_path)
    assert result.exit_code == 0, result.output
    assert "nominal: x, y" in result.output


def test_plot_boundary_on_missing_cells_handled_natively(tmp_path):
    data = tmp_path / "n.csv"
    data.write_text("a,b,y\n1,2,0\n2,,1\n3,4,0\n4,5,1\n5,1,1\n6,2,0\n,3,1\n")
    out = tmp_path / "regions"
    result = _run(["plot", "boundary", "--data", data, "--target", "y", "--missing",
                   "native", "--algorithm", "c45", "-o", out], tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "regions.png").stat().st_size > 0
