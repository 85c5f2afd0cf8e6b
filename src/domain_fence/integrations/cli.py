"""The ``domain-fence`` command: ``check``, ``baseline``, ``init``, ``explain`` and ``lsp``.

Exit statuses: 0 clean, 1 findings (stale baseline entries included), 2 configuration
or usage error, reported as one line on stderr, never a traceback.

import-linter, grimp and rich are imported only by the commands that use them: a
``check`` whose inputs have not changed since its last run replays that run's report
(:mod:`domain_fence.core.engine.runcache`) without them. So are the baseline, the
presets and layout of ``init`` and the rule docs of ``explain``: a replay imports
little but click and the run cache, and starts that much sooner.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ParamSpec, TypeVar

from domain_fence.core.index.collector import paused_cyclic_collection
from domain_fence.integrations.interrupts import EXIT_INTERRUPTED, INTERRUPTED

# What click and the run cache create as they are imported lives until the process ends:
# a collection meanwhile would walk it all again for nothing (see run).
with paused_cyclic_collection():
    import click

    from domain_fence.core.engine.runcache import (
        InputDigest,
        Inputs,
        Invocation,
        RunCache,
        configuration_state,
        input_digest,
    )
    from domain_fence.core.setup.preset_names import PRESET_NAMES
    from domain_fence.core.source.cachedir import CACHE_DIR_ENV, DEFAULT_DIRECTORY, cache_directory, usable_directory
    from domain_fence.core.source.listing import shared_listings
    from domain_fence.integrations.reporters.options import FORMATS, RenderOptions

if TYPE_CHECKING:
    from grimp import ImportGraph

    from domain_fence.core.engine.recorded import Recorded
    from domain_fence.core.model.report import Ratchet, Report
    from domain_fence.integrations.importlinter.configuration import Configuration

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=True, path_type=Path),
    default=None,
    help="import-linter configuration file, or the directory holding it (default: the current directory).",
)

P = ParamSpec("P")
R = TypeVar("R")


def _cache_directory(context: click.Context, parameter: click.Parameter, value: str | None) -> Path | None:
    # An empty path would be the current directory: the project itself as the cache.
    if value is not None and not value.strip():
        raise click.BadParameter("an empty path; name a directory, or use --no-cache")
    if value is not None and context.params.get("no_cache"):
        raise click.UsageError(_NO_CACHE_AND_DIRECTORY)
    return None if value is None else Path(value)


# Each option's callback looks for the other: click runs them in the order they were given.
_NO_CACHE_AND_DIRECTORY = "--no-cache and --cache-dir exclude each other"


def _no_cache(context: click.Context, parameter: click.Parameter, value: bool) -> bool:
    if value and context.params.get("cache_dir") is not None:
        raise click.UsageError(_NO_CACHE_AND_DIRECTORY)
    return value


def cache_options(command: Callable[P, R]) -> Callable[P, R]:
    """``--no-cache`` and ``--cache-dir``: where the facts of every file and grimp's
    import graph are cached (the environment's DOMAIN_FENCE_NO_CACHE and
    DOMAIN_FENCE_CACHE_DIR say the same for every front end)."""
    command = click.option(
        "--cache-dir",
        type=click.Path(file_okay=False),
        default=None,
        callback=_cache_directory,
        help=f"Cache directory (default: {DEFAULT_DIRECTORY} in the project, or ${CACHE_DIR_ENV}).",
    )(command)
    return click.option(
        "--no-cache", is_flag=True, callback=_no_cache, help="Read every file afresh and write no cache."
    )(command)


def configure_cache(configuration: Configuration, no_cache: bool, cache_dir: Path | None) -> None:
    if no_cache:
        configuration.cache_dir = None
    elif cache_dir is not None:
        configuration.cache_dir = usable_directory(cache_dir)


class UsageFailure(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = EXIT_ERROR

    def show(self, file: IO[Any] | None = None) -> None:
        for line in self.message.splitlines() or [""]:  # one problem per line, each prefixed
            click.echo(f"domain-fence: error: {line}", err=True)


class Interrupted(click.ClickException):
    """Ctrl-C: one line and the shell's status for it (click would print a blank line
    and "Aborted!")."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: object = None) -> None:
        click.echo(INTERRUPTED, err=True)


class OneLineErrors(click.Group):
    """click prints usage errors as a usage block; ours are one line, like every other
    error of the command, so a CI log or a pre-commit hook shows what is wrong at once."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        with _output_failures():  # --help, --version: printed as the options are read
            return super().make_context(info_name, args, parent, **extra)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        # check may write its report to --output (else it says so itself); every other
        # command writes to stdout, which click would silently not print to once closed (>&-).
        if sys.stdout is None and name != "check":
            raise UsageFailure("cannot write the output: standard output is closed")
        return name, command, rest

    def invoke(self, ctx: click.Context) -> object:
        try:
            with _output_failures():
                return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        _tolerant_stdout()
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as error:
            command = error.ctx.command_path if error.ctx else "domain-fence"
            # click 8.2 and later give a bare command its whole help as the error's message
            no_arguments = type(error).__name__ == "NoArgsIsHelpError"
            problem = "missing command" if no_arguments else error.format_message()
            click.echo(f"domain-fence: error: {problem} (see '{command} --help')", err=True)
            sys.exit(EXIT_ERROR)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except KeyboardInterrupt:  # between commands' own handling: still one line
            Interrupted().show()
            sys.exit(EXIT_INTERRUPTED)
        except SystemExit:
            raise
        except BaseException as error:  # noqa: BLE001 -- a bug of ours (or a panic in grimp): one line all the same
            if isinstance(error, OSError) and _output_unwritable(error):
                click.echo(f"domain-fence: error: cannot write the output: {error.strerror or error}", err=True)
                sys.exit(EXIT_ERROR)
            from domain_fence.core.model.text import one_line  # only now: a replay never needs it

            click.echo(f"domain-fence: internal error: {type(error).__name__}: {one_line(error)}", err=True)
            sys.exit(EXIT_ERROR)
        sys.exit(status if isinstance(status, int) else EXIT_CLEAN)


@contextmanager
def _output_failures() -> Iterator[None]:
    """A pipe closed by its reader while the output is written: one line and status 2,
    where click would end the run with status 1 in silence, which reads as findings."""
    try:
        yield
    except BrokenPipeError as error:
        if _output_unwritable(error):
            raise UsageFailure(f"cannot write the output: {error.strerror or error}") from None
        raise


UNICODE_ENCODINGS = frozenset(
    ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be")
)


def _tolerant_stdout() -> None:
    """A character stdout's encoding cannot show (a latin-1 locale, a Windows pipe in
    cp1252) is written as Python's ``backslashreplace`` writes it, as on stderr, rather
    than ending the run with the report unprinted."""
    import io

    stream = sys.stdout
    with suppress(ValueError, OSError):  # closed, or its pending output cannot be flushed
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")


def _stdout_is_unicode() -> bool:
    import codecs

    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        return codecs.lookup(encoding).name in UNICODE_ENCODINGS
    except LookupError:
        return False


def _ascii_json(text: str) -> str:
    """JSON ``text`` with every character beyond ASCII escaped (``\\uXXXX``, a
    surrogate pair beyond the BMP), as ``json.dumps`` writes by default: the same
    document, in bytes any ASCII-compatible encoding writes alike."""
    if text.isascii():
        return text
    escaped = []
    for character in text:
        code = ord(character)
        if code < 0x80:
            escaped.append(character)
        elif code < 0x10000:
            escaped.append(f"\\u{code:04x}")
        else:
            code -= 0x10000
            escaped.append(f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}")
    return "".join(escaped)


def _output_unwritable(error: OSError) -> bool:
    """Whether ``error`` came from writing the output (``click.echo`` onto ``/dev/full``,
    a closed pipe); if so stdout is pointed at the null device, so that the flush at
    exit does not fail again."""
    import traceback

    frames = traceback.walk_tb(error.__traceback__)
    if not any(f.f_code.co_name == "echo" and f.f_globals.get("__name__") == "click.utils" for f, _ in frames):
        return False
    with suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return True


def run() -> None:
    """The ``domain-fence`` console script: :func:`main` in a process of its own.

    The cyclic garbage collector is off: a command checks once and exits, the facts of
    thousands of files and the import graph live until then and hold no reference
    cycles, so each collection would walk them again for nothing (0.2 s of a cold
    check of 3,500 files). Reference counting still frees everything else. (Tests
    invoke ``main`` in their own process, which keeps its collector.)

    The collections Python runs while it tears down run even so: every object alive
    at the end is frozen, out of their reach (a replayed check spends a tenth of its
    time in them otherwise). The exit handlers still run, the output is flushed.
    """
    gc.disable()
    try:
        main()
    except KeyboardInterrupt:  # while click itself was starting or ending
        Interrupted().show()
        sys.exit(EXIT_INTERRUPTED)
    finally:
        gc.freeze()
        # The report is out: a Ctrl-C (or a SIGTERM, taken as one) while the interpreter
        # tears down (its handlers are gone by then) must not turn the run's status into
        # a death by signal, nor print a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="domain-fence")
def main() -> None:
    """Keep a codebase's runtime free of experiment concerns."""


@main.command()
@config_option
@click.option(
    "--format", "format_", type=click.Choice(FORMATS), default="text", show_default=True, help="Report format."
)
@click.option(
    "--output",
    "-o",
    "output_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to FILE instead of stdout.",
)
@click.option("--quiet", "-q", is_flag=True, help="Only what fails: finding lines and the exit status.")
@click.option("--verbose", "-v", is_flag=True, help="Also list baselined findings (in SARIF: as suppressed results).")
@click.option(
    "--ratchet-since",
    metavar="REV",
    help="Also fail on every baseline entry added since git revision REV (a pull request's base): "
    "the baseline may only shrink.",
)
@cache_options
def check(
    config_path: Path | None,
    format_: str,
    output_path: Path | None,
    quiet: bool,
    verbose: bool,
    ratchet_since: str | None,
    no_cache: bool,
    cache_dir: Path | None,
) -> int:
    """Check every contract of the configuration and report all findings.

    Exit status 0 when every contract is kept, 1 when a contract is broken (a new
    finding, a stale baseline entry, a file that cannot be analysed, or a contract that
    could not run) or, with --ratchet-since, a baseline grew; 2 when the configuration
    cannot be used.
    """
    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose exclude each other")
    workspace = os.environ.get("GITHUB_WORKSPACE")
    options = RenderOptions(
        quiet=quiet,
        verbose=verbose,
        workspace=Path(workspace).resolve().as_posix() if workspace else None,
        prune_command=prune_command(config_path),
    )
    ratchet = check_ratchet(config_path, ratchet_since) if ratchet_since is not None else None
    runs = run_cache(config_path, format_, options, no_cache, cache_dir, ratchet)
    # The walks before the check share their listings.
    with shared_listings():
        replay = runs.replay() if runs else None
        if output_path is not None:  # the inputs a replay read are known: nothing more is read for them
            _refuse_output_over_an_input(config_path, output_path, replay.inputs if replay is not None else None)
        if replay is not None:
            _emit(replay.text, output_path, _aside(ratchet, format_), format_)
            return replay.status

        from domain_fence.integrations.reporters import render

        progress = Progress(enabled=not quiet)
        recorded = recorded_settings(runs, cache_dir)
        inputs: Inputs | None
        digest: InputDigest | None
        if runs and recorded is not None:
            inputs, digest = looked_at(
                runs, recorded.settings.contracts, recorded.settings.root_packages, recorded.settings.root
            )
            with progress.running() as update:
                report = check_recorded(recorded, no_cache, cache_dir, update)
            record = runs.recorded
        else:
            report, inputs, digest, record = check_read(config_path, runs, no_cache, cache_dir, progress)
    report = report._replace(ratchet=ratchet)
    text = render(report, format_, options)
    status = EXIT_CLEAN if report.passed else EXIT_FINDINGS
    # Stored under the inputs' digest before the check: a file that changed while the
    # check ran has a new stamp by now (its change time), so this report is never replayed.
    # One that cannot be vouched for (a file modified a moment ago) is stored never to be
    # replayed, when it read settings and none usable are recorded: the checks that
    # follow edits, each a moment after one, start from them.
    if (
        runs
        and inputs
        and digest is not None
        and (digest.whole is not None or (digest.setup is not None and recorded is None and isinstance(record, dict)))
    ):
        runs.store(inputs, digest, text, status, record if isinstance(record, dict) else None)
    _emit(text, output_path, _aside(ratchet, format_), format_)
    return status


def check_read(
    config_path: Path | None, runs: RunCache | None, no_cache: bool, cache_dir: Path | None, progress: Progress
) -> tuple[Report, Inputs | None, InputDigest | None, dict[str, Any] | None]:
    """Check the configuration read through import-linter: the report, the inputs and
    their digest before the check (None: not to be stored) and the settings to record."""
    from domain_fence.core.engine.baseline import BaselineError
    from domain_fence.core.engine.failures import ContractFailed
    from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration
    from domain_fence.integrations.importlinter.results import check_configuration
    from domain_fence.integrations.importlinter.session import settings_record_of

    try:
        # The configuration's files before and after they are read, and when the
        # inputs' digest was taken, are one version: else what was read is not what
        # that digest stands for, and nothing is stored under it.
        before = configuration_state(runs.invocation.config_candidates()) if runs else None
        configuration = load_configuration(config_path)
        configure_cache(configuration, no_cache, cache_dir)
        inputs, digest = run_inputs(configuration, runs) if runs else (None, None)
        if inputs is not None and digest is not None:
            after = configuration_state(inputs.config_candidates)
            if before != after or digest.configuration != after[0]:
                inputs = None
        with progress.running() as update:
            report = check_configuration(configuration, update)
        record = settings_record_of(configuration) if inputs is not None else None
    except (ConfigurationError, ContractFailed, BaselineError) as error:
        raise UsageFailure(str(error)) from None
    return report, inputs, digest, record


def recorded_settings(runs: RunCache | None, cache_dir: Path | None) -> Recorded | None:
    """The settings the last run of this invocation recorded, when the configuration's
    files and the tools are as they were then (see :mod:`~..core.engine.recorded`)."""
    if runs is None or runs.recorded is None:
        return None
    from domain_fence.core.engine.recorded import settings_from_record

    recorded = settings_from_record(runs.recorded, None)
    if recorded is None:
        return None
    root = recorded.settings.root
    directory = usable_directory(cache_dir) if cache_dir is not None else cache_directory(root)
    return recorded._replace(settings=recorded.settings._replace(cache_dir=directory))


def check_recorded(
    recorded: Recorded, no_cache: bool, cache_dir: Path | None, progress: Callable[[str], None]
) -> Report:
    """Check with the settings recorded by the last run, as ``check_configuration``
    checks a configuration of domain-fence contracts; import-linter is imported only if
    the import graph must be built."""
    from domain_fence.core.engine import ConfigurationProblems, Engine
    from domain_fence.core.engine.baseline import BaselineError
    from domain_fence.core.engine.failures import ContractFailed, failure_as_one_line
    from domain_fence.core.model.report import Report

    settings = recorded.settings
    engine: Engine | None = None

    def build_graph() -> ImportGraph:
        from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration
        from domain_fence.integrations.importlinter.session import graph_builder

        try:
            configuration = load_configuration(settings.config_path)
            configure_cache(configuration, no_cache, cache_dir)
            return graph_builder(configuration, lambda: None if engine is None else engine.index)()
        except ConfigurationError as error:
            raise UsageFailure(str(error)) from None

    engine = Engine(settings, build_graph=build_graph, graph_from_bytes=lambda: recorded.graph_from_bytes)
    results = []
    try:
        try:
            engine.validate()
            for spec in settings.contracts:
                progress(f"Checking {spec.name}")
                with failure_as_one_line(f"{settings.config_path}: {spec.section}", (UsageFailure, BaselineError)):
                    results.append(engine.check_contract(spec))
        finally:
            engine.save()
    except (ConfigurationProblems, ContractFailed, BaselineError) as error:
        raise UsageFailure(str(error)) from None
    root = settings.root
    config = settings.config_path
    shown = config.relative_to(root).as_posix() if config.is_relative_to(root) else config.as_posix()
    return Report(root=root.as_posix(), config=shown, contracts=tuple(results))


def check_ratchet(config_path: Path | None, revision: str) -> Ratchet:
    """The baseline entries added since ``revision``, for the report to carry."""
    from domain_fence.core.engine.baseline import BaselineError
    from domain_fence.core.engine.failures import ContractFailed
    from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration
    from domain_fence.integrations.review import ReviewError, ratchet_since

    try:
        return ratchet_since(load_configuration(config_path), revision)
    except (ConfigurationError, ContractFailed, BaselineError, ReviewError) as error:
        raise UsageFailure(str(error)) from None


def _aside(ratchet: Ratchet | None, format_: str) -> str:
    """What the text format says of the ratchet apart from the report: on stderr, or
    after the report in an ``--output`` file. Every other format has it in the report."""
    if format_ != "text" or ratchet is None:  # a replay without a ratchet imports no reporter
        return ""
    from domain_fence.integrations.reporters.text import ratchet_text

    return ratchet_text(ratchet)


def run_cache(
    config_path: Path | None,
    format_: str,
    options: RenderOptions,
    no_cache: bool,
    cache_dir: Path | None,
    ratchet: Ratchet | None = None,
) -> RunCache | None:
    """Where this invocation's last report is kept; None when caching is off. What the
    ratchet found (found anew on every run: it asks git) is part of the invocation, so
    a report is replayed only with the same entries added."""
    if no_cache:
        return None
    rendering = [(name, str(value)) for name, value in options._asdict().items()]
    if ratchet is not None:
        rendering.append(("ratchet", repr(ratchet)))
    # Which files are read at all; as written (a replay imports no more than it needs).
    rendering.append(("max_file_size", os.environ.get("DOMAIN_FENCE_MAX_FILE_SIZE", "")))
    try:
        here = os.getcwd()
    except OSError:  # the current directory was removed: an invocation no later one repeats
        return None
    invocation = Invocation(here, str(config_path) if config_path is not None else None, format_, ())
    if format_ == "sarif":  # its paths are relative to the checkout's top, which git may move
        from domain_fence.integrations.gitrepo import repository_root

        rendering.append(("checkout", str(repository_root(invocation.project_root))))
    invocation = invocation._replace(options=tuple(sorted(rendering)))
    directory = usable_directory(cache_dir) if cache_dir is not None else cache_directory(invocation.project_root)
    return RunCache(directory, invocation) if directory is not None else None


# Contract types whose checks read nothing but the configuration, baselines and sources.
KNOWN_CONTRACT_MODULES = ("domain_fence.", "importlinter.")


def run_inputs(configuration: Configuration, runs: RunCache) -> tuple[Inputs | None, InputDigest | None]:
    """What a check of ``configuration`` reads, and its digest before the check (the
    one the missed replay took of the same inputs, if any: a change since gives the
    next run another digest); None when the run cannot be replayed (a
    third-party contract type may read anything), or when the replay could not vouch
    for the inputs (a file modified a moment before, as after an edit: a walk now would
    say the same)."""
    if configuration.cache_dir is None:
        return None, None
    if any(not cls.__module__.startswith(KNOWN_CONTRACT_MODULES) for cls in configuration.contract_types.values()):
        return None, None
    return looked_at(runs, configuration.fence_contracts(), configuration.root_packages, configuration.root)


def looked_at(
    runs: RunCache, contracts: Iterable[Any], root_packages: Iterable[str], root: Path
) -> tuple[Inputs, InputDigest]:
    """What a check of ``contracts`` reads, and its digest before the check: the one the
    missed replay took, when it looked at the same inputs."""
    baselines = sorted(
        {str(contract.config.baseline.written or contract.config.baseline.path) for contract in contracts}
    )
    candidates = tuple(runs.invocation.config_candidates())
    inputs = Inputs(candidates, tuple(baselines), tuple(root_packages), str(root))
    if runs.looked_at is not None and runs.looked_at[0] == inputs:
        return inputs, runs.looked_at[1]
    return inputs, input_digest(inputs)


def prune_command(config_path: Path | None) -> str:
    """The command that strikes fixed entries, for the configuration this run checked."""
    command = "domain-fence baseline --prune"
    if config_path is None:
        return command
    import shlex  # only here: a run without --config does not import it

    return f"{command} --config {shlex.quote(str(config_path))}"


def _refuse_output_over_an_input(config_path: Path | None, output_path: Path, replayed: Inputs | None) -> None:
    """``--output`` naming the configuration or a baseline file would put the report where
    the next run reads its contracts or its recorded findings. Of a replay, the inputs
    it read (``replayed``); else those the configuration names."""
    if replayed is not None:
        inputs = [("the configuration file", Path(path)) for path in replayed.config_candidates if Path(path).exists()]
        inputs += [("a baseline file", Path(path)) for path in replayed.baselines]
    else:
        from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration
        from domain_fence.integrations.review import baseline_files

        try:
            configuration = load_configuration(config_path)
            inputs = [("the configuration file", configuration.path)]
            inputs += [("a baseline file", path) for path in baseline_files(configuration)]
        except ConfigurationError:
            return  # the check says what is wrong with it
    for what, path in inputs:
        if _same_file(output_path, path):
            raise UsageFailure(f"--output {output_path}: is {what}, which the report would overwrite")


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve() or os.path.samefile(one, other)
    except (OSError, RuntimeError):  # either missing (no file to overwrite yet), or a loop of links
        return False


def _emit(text: str, output_path: Path | None, aside: str = "", format_: str = "text") -> None:
    """The report on stdout and ``aside`` on stderr, or both into ``output_path`` (in
    UTF-8). On a stdout whose encoding is not Unicode, a JSON or SARIF report is
    written in ASCII (see :func:`_ascii_json`); any other format has what the encoding
    cannot show backslash-escaped (see :func:`_tolerant_stdout`)."""
    if output_path is None:
        if sys.stdout is None:  # closed by the shell (>&-): click would drop the report in silence
            raise UsageFailure("cannot write the output: standard output is closed")
        if format_ in ("json", "sarif") and not _stdout_is_unicode():
            text = _ascii_json(text)
        click.echo(text, nl=False)
        if aside:
            click.echo(aside, nl=False, err=True)
        return
    try:
        output_path.write_text(text + aside, encoding="utf-8")
    except OSError as error:
        raise UsageFailure(f"{output_path}: cannot write the report: {error.strerror or error}") from None


class Progress:
    """A spinner on stderr while contracts run, only when stderr is a terminal: a tty,
    whatever the environment says of colours (``FORCE_COLOR``, set in many CI jobs,
    makes rich take any stream for a terminal, and would put its escape codes in a
    log), and one rich would animate."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and _is_a_tty(sys.stderr)
        if self.enabled:  # then rich decides too: importing it costs about 20 ms
            from rich.console import Console

            self.console = Console(stderr=True)
            self.enabled = self.console.is_terminal

    @contextmanager
    def running(self) -> Iterator[Callable[[str], None]]:
        if not self.enabled:
            yield lambda message: None
            return
        with self.console.status("Reading the configuration") as status:
            yield lambda message: status.update(message)


def _is_a_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


@main.command()
@config_option
@click.option("--prune", is_flag=True, help="Only remove stale entries; record nothing new.")
@cache_options
def baseline(config_path: Path | None, prune: bool, no_cache: bool, cache_dir: Path | None) -> None:
    """Record the current violations of every domain-fence contract in its baseline.

    Prints, per baseline file, how many entries it holds and how many were added,
    pruned, re-keyed and are still present, then each entry added, pruned or re-keyed.
    An entry of a module renamed since is re-keyed to the module's new name (with
    --prune too). A file whose content would not change is not written.
    """
    from domain_fence.core.engine.baseline import BaselineError
    from domain_fence.core.engine.failures import ContractFailed
    from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration

    try:
        configuration = load_configuration(config_path)
        configure_cache(configuration, no_cache, cache_dir)
        lines = record_baselines(configuration, prune)
    except (ConfigurationError, ContractFailed, BaselineError) as error:
        raise UsageFailure(str(error)) from None
    if not lines:
        lines = [f"{configuration.path.name}: no boundary, vocabulary or placement contract; nothing to record"]
    for line in lines:
        click.echo(line)


def record_baselines(configuration: Configuration, prune: bool = False) -> list[str]:
    """Record (or with ``prune`` only strike) baseline entries for every domain-fence
    contract of ``configuration``; per baseline file a summary line, then one line per
    entry added, pruned or carried over a module rename (git's renames since the file
    was last committed decide which)."""
    from domain_fence.core.families import GraphUnavailableError
    from domain_fence.integrations.importlinter.configuration import ConfigurationError
    from domain_fence.integrations.importlinter.results import validate
    from domain_fence.integrations.importlinter.session import engine_for
    from domain_fence.integrations.review import renames_since_recorded

    engine = engine_for(configuration)
    try:
        validate(engine)
        return engine.record(prune, lambda path: renames_since_recorded(configuration.root, path, engine.index))
    except GraphUnavailableError as error:
        raise ConfigurationError(str(error)) from None
    finally:
        engine.save()


INIT_CONFIG = ".importlinter"
FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")  # flake8's order: the first with [flake8] wins


@main.command()
@click.option("--preset", type=click.Choice(PRESET_NAMES), help="A known project layout (monty: tbp.monty).")
@click.option("--force", is_flag=True, help=f"Replace an existing {INIT_CONFIG}.")
@click.option(
    "--experiment-helpers",
    is_flag=True,
    help="Classify as experiment the runtime-side modules that only experiment code imports.",
)
def init(preset: str | None, force: bool, experiment_helpers: bool) -> None:
    """Write a working configuration for the project in the current directory.

    Writes .importlinter (boundary, vocabulary and placement contracts), .flake8 when
    flake8 is not configured yet (selecting only the DOM codes when ruff lints the
    project), and a baseline of the current violations. Without
    --preset, experiment code is found by name (packages called experiment or
    experiments). The runtime is everything else below the root packages, including
    packages added later. Modules outside the experiment packages that only
    experiment code imports (analysis and plotting helpers) are listed; with
    --experiment-helpers they are classified as experiment.
    """
    from domain_fence.core.engine.baseline import BaselineError
    from domain_fence.core.engine.failures import ContractFailed
    from domain_fence.core.setup.layout import LayoutError, read_layout, ruff_configuration
    from domain_fence.core.setup.presets import (
        EDITOR_RECIPE,
        PRESETS,
        contract_ids,
        plan_detected,
        plan_preset,
        render_importlinter,
    )
    from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration

    directory = Path.cwd().resolve()
    target = directory / INIT_CONFIG
    _refuse_existing_configuration(directory, target, force)
    try:
        layout = read_layout(directory)
        ruff = ruff_configuration(directory)
        if preset:
            plan = plan_preset(layout, PRESETS[preset], experiment_helpers)
        else:
            plan = plan_detected(layout, experiment_helpers)
    except LayoutError as error:
        raise UsageFailure(str(error)) from None
    command = " ".join(
        [
            "domain-fence init",
            *([f"--preset {preset}"] if preset else []),
            *(["--experiment-helpers"] * experiment_helpers),
        ]
    )
    replaced = target.read_text(encoding="utf-8") if target.exists() else None
    created = [] if replaced is not None else [target]
    contracts = ", ".join(f"{kind} {name}" for kind, name in contract_ids(plan))
    lines = [
        f"wrote {INIT_CONFIG}: root package {', '.join(plan.root_packages)} ({plan.origin}); {contracts}",
        f"  runtime: {', '.join(plan.root_packages)} but the experiment modules (now {', '.join(plan.runtime)})",
        f"  experiment: {', '.join(plan.experiment)}",
    ]
    if plan.written_event_bases:
        lines.append(f"  event bases: {', '.join(plan.written_event_bases)}")
    if plan.helpers and plan.helpers_are_experiment:
        lines.append(f"  classified as experiment (only experiment code imports them): {', '.join(plan.helpers)}")
    elif plan.helpers:
        lines.append(
            f"  only experiment code imports: {', '.join(plan.helpers)}; "
            "--experiment-helpers classifies them as experiment"
        )
    if plan.left_out:
        lines.append(f"  left out (not in this project): {', '.join(plan.left_out)}")
    lines += [f"  note: {note}" for note in plan.notes]
    try:
        try:
            target.write_text(render_importlinter(plan, command), encoding="utf-8")
        except OSError as error:
            raise UsageFailure(f"{target}: cannot write: {error.strerror or error}") from None
        try:
            lines.append(_configure_flake8(directory, created, ruff))
        except OSError as error:  # all or nothing: no half-configured project
            _leave_as_it_was(target, created, replaced)
            raise UsageFailure(f"{error.filename or directory}: cannot write: {error.strerror or error}") from None
        try:
            lines += record_baselines(load_configuration(target))
        except (ConfigurationError, ContractFailed, BaselineError) as error:
            _leave_as_it_was(target, created, replaced)
            # The configuration the message names is no longer there: say what was not done.
            problem = str(error).removeprefix(f"{target}: ")
            raise UsageFailure(f"{directory}: cannot record the baseline, so init wrote nothing: {problem}") from None
    except KeyboardInterrupt:  # a Ctrl-C or SIGTERM meanwhile: no half-set-up project either
        _leave_as_it_was(target, created, replaced)
        raise
    if layout.src_layout:
        lines.append(
            f"note: src layout: lint-imports finds {plan.root_packages[0]} only when the project is installed "
            "(pip install -e .) or with PYTHONPATH=src; domain-fence and domain-fence-lint-imports find src/ itself"
        )
    if ruff is not None:
        lines += EDITOR_RECIPE
    for line in lines:
        click.echo(line)


def _leave_as_it_was(target: Path, created: list[Path], replaced: str | None) -> None:
    """Undo what ``init`` wrote: the files it created, the configuration it replaced."""
    for path in created:
        path.unlink(missing_ok=True)
    if replaced is not None:
        target.write_text(replaced, encoding="utf-8")


def _refuse_existing_configuration(directory: Path, target: Path, force: bool) -> None:
    from domain_fence.integrations.importlinter.configuration import (
        ConfigurationError,
        ConfigurationNotFound,
        find_configuration,
    )

    try:
        found = find_configuration(directory)
    except ConfigurationNotFound:
        found = None
    except ConfigurationError as error:  # every front end would stop at it, before the file init writes
        raise UsageFailure(f"{error}; init wrote nothing") from None
    if found is not None and found != target:
        raise UsageFailure(
            f"{found}: already holds the import-linter configuration; init writes {INIT_CONFIG} "
            f"and does not edit {found.name} (remove its importlinter section first)"
        )
    if os.path.lexists(target) and not target.is_file():  # --force could not replace it either
        raise UsageFailure(f"{target}: is not a regular file; init writes its configuration there")
    if target.exists() and not force:
        raise UsageFailure(f"{target}: already exists; pass --force to replace it")


def _configure_flake8(directory: Path, created: list[Path], ruff: Path | None = None) -> str:
    from domain_fence.core.setup.presets import FLAKE8_DOM_ONLY_SECTION, FLAKE8_SECTION

    for name in FLAKE8_FILES:
        path = directory / name
        try:
            lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        except (OSError, UnicodeDecodeError):
            lines = ["[flake8]"]  # unreadable: leave it to its owner
        configured = any(line.strip() == "[flake8]" for line in lines)
        if configured:
            return f"kept {name}: it configures flake8 already (DOM codes need `extend-select = DOM` if it sets select)"
    path = directory / ".flake8"
    path.write_text(FLAKE8_SECTION if ruff is None else FLAKE8_DOM_ONLY_SECTION, encoding="utf-8")
    created.append(path)
    if ruff is not None:
        return f"wrote .flake8: select = DOM (ruff lints this project, see {ruff.name}: flake8 reports only DOM codes)"
    return "wrote .flake8: extend-select = DOM"


@main.command()
@click.option(
    "--stdio", is_flag=True, help="Talk over stdin and stdout: the only transport, accepted for editors that pass it."
)
def lsp(stdio: bool) -> None:
    """Run the language server: diagnostics, noqa quick fixes and rule docs for the
    open Python files of each workspace folder holding an import-linter configuration."""
    try:
        from domain_fence.integrations.lsp.server import serve
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in LSP_REQUIREMENTS:
            raise
        raise UsageFailure(
            f"the language server needs {missing} (the lsp extra): pip install 'pygls>=2.1,<3' 'lsprotocol>=2025'"
        ) from None
    gc.enable()  # a long-lived process: the cycles it makes must be collected (see run())
    serve()


LSP_REQUIREMENTS = ("pygls", "lsprotocol", "cattrs", "attrs")


@main.command()
@click.argument("code", required=False)
def explain(code: str | None) -> None:
    """Print a rule's documentation (CODE such as DOM101); without CODE, list the rules."""
    from domain_fence.core.model.ruledocs import explain as explain_rule
    from domain_fence.core.model.rules import RULES, get_rule

    if code is None:
        for rule in RULES.values():
            click.echo(f"{rule.code}  {rule.name}: {rule.summary}")
        return
    try:
        rule = get_rule(code)
    except KeyError as error:
        raise UsageFailure(error.args[0]) from None
    click.echo(explain_rule(rule), nl=False)


if __name__ == "__main__":  # pragma: no cover -- ``python -m``: as the console script runs
    run()
