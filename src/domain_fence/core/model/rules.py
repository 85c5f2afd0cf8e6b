"""The rule registry: every code domain-fence reports, with its documentation.

Codes are permanent: a rule that goes away moves to ``RETIRED`` and its code is never
given to another rule. The README's rule reference and ``domain-fence explain`` are
generated from this module, and a test fails when they disagree.
"""

from typing import NamedTuple

from domain_fence.core.model.text import escape_controls


class Rule(NamedTuple):
    """A rule of the registry: its code, its message and its documentation."""

    code: str
    name: str  # kebab-case, after the bad pattern
    family: str  # "input", "vocabulary", "placement" or "boundary"
    message: str  # str.format template; rendered messages stay under ~100 characters
    summary: str  # one line: what it flags
    rationale: str  # why it matters
    remedy: str  # how to fix it
    example: str  # a short offending snippet

    def format(self, **fields: object) -> str:
        """The message, each text field on one line (control characters escaped)."""
        return self.message.format(**{k: escape_controls(v) if isinstance(v, str) else v for k, v in fields.items()})


_RULES = [
    Rule(
        code="DOM001",
        name="unanalysable-file",
        family="input",
        message="skipped: {reason}",
        summary="A file in a checked module could not be read or parsed.",
        rationale=(
            "A file the checker cannot read is a file it cannot vouch for. Reporting it, "
            "rather than skipping it quietly, keeps a syntax error or a bad encoding from "
            "turning a broken contract into a passing one."
        ),
        remedy="Fix the syntax error or the encoding; the file is checked on the next run.",
        example="class Stats(TelemetryEvent):\n    episode: int =",
    ),
    Rule(
        code="DOM002",
        name="stale-baseline-entry",
        family="input",
        message="baseline entry matches nothing: {fingerprint}; run 'domain-fence baseline --prune'",
        summary="A baseline entry no longer matches any violation.",
        rationale=(
            "The baseline is a ratchet: it records violations that existed when the tool was "
            "adopted, and may only shrink. An entry whose violation was fixed would otherwise "
            "let the same violation come back unnoticed."
        ),
        remedy="Remove the entry with `domain-fence baseline --prune` and commit the result.",
        example='{"contract": "runtime-knows-no-experiment", "fingerprint": "boundary:a->b"}',
    ),
    Rule(
        code="DOM003",
        name="baseline-entry-added",
        family="input",
        message="baseline entry added since {revision}: {contract} {fingerprint}",
        summary="A baseline entry was added since the revision a review compares with.",
        rationale=(
            "The baseline may only shrink. A branch that records its baseline again accepts "
            "its own new violations, which the baseline alone cannot tell from old ones: "
            "`domain-fence check --ratchet-since REV` reports every entry the baseline "
            "files hold that they did not hold at REV, at its line of the baseline."
        ),
        remedy=(
            "Fix the new violation and strike its entry with `domain-fence baseline --prune`; "
            "an entry carried over a module rename git detects is not reported."
        ),
        example='{"contract": "runtime-knows-no-experiment", "fingerprint": "boundary:a->b"}  # not at REV',
    ),
    Rule(
        code="DOM101",
        name="experiment-word-in-event-field",
        family="vocabulary",
        message="event field '{name}'{via}: experiment vocabulary '{word}'{hint}",
        summary="A runtime event declares a field named with experiment vocabulary.",
        rationale=(
            "Runtime events carry only what the runtime may know. A field such as `episode` or "
            "`primary_target` means the runtime is being told about the experiment that drives "
            "it, and can no longer run without one. A field is what the event emits: a pydantic "
            "`@computed_field` is one (reported at the method's name), a `ClassVar` is none, and "
            "neither is `Annotated[ClassVar[...], ...]` in a pydantic model (a dataclass or an attrs "
            "class takes that one as a field)."
        ),
        remedy=(
            "Drop the field from the runtime event; let the experiment attach its own context "
            "when it consumes the event (for example in a post-episode handler)."
        ),
        example="class MatchEvent(TelemetryEvent):\n    episode: int",
    ),
    Rule(
        code="DOM102",
        name="experiment-word-in-event-name",
        family="vocabulary",
        message="event class {name}{via}: experiment vocabulary '{word}'{hint}",
        summary="A runtime event class is named with experiment vocabulary.",
        rationale=(
            "An event named after an experiment concept (`PostEpisodeStats`, `EpochSummary`) is "
            "experiment machinery living in the runtime package."
        ),
        remedy="Move the class under the experiment package, or rename it for what the runtime observed.",
        example="class PostEpisodeStats(TelemetryEvent): ...",
    ),
    Rule(
        code="DOM103",
        name="experiment-word-in-event-kind",
        family="vocabulary",
        message="event kind '{kind}'{via}: experiment vocabulary '{word}'{hint}",
        summary="A runtime event's kind string uses experiment vocabulary.",
        rationale=(
            "Kind strings are how subscribers route events; a kind such as `post_episode` makes "
            "every subscriber depend on the experiment's life cycle. A kind is read where the "
            "event class sets it (in its body: assigned, or the default of a field specifier, "
            '`Field(default="EpisodeEnd")`, also one in `Annotated[...]` where no value is '
            "assigned; or on `self` in one of its methods: "
            '`self.kind = "EpisodeEnd"` in `model_post_init`, a validator or `__post_init__`, '
            '`object.__setattr__(self, "kind", ...)`, `setattr(self, "kind", ...)`, or on `cls` '
            'in a class method: `cls.kind = "EpisodeEnd"`) and where '
            "runtime code gives it when constructing an event "
            '(`TelemetryEvent(kind="EpisodeEnd")`, `**{"kind": "..."}`, or in any construction '
            "DOM104 reads) or to an emit function (a configured `emit_functions` callee, or one "
            "its definition makes one: see DOM104) "
            '(`emit_step(kind="EpisodeEnd")`): a literal string, the literal parts of an f-string '
            "or of strings "
            "joined with `+`, or a module-level constant holding one (`kind=KIND_NAME` after "
            '`KIND_NAME = "EpisodeEnd"`, in the call or in the class body) that the module binds '
            "nowhere else, module constants folded into an f-string or a `+`, or into a "
            "literal formatted with plain `{}` / `%s` slots "
            '(`END_KIND = PREFIX + "End"`, `f"{PREFIX}Start"`, `"{}Start".format(PREFIX)`, '
            '`"%sEnd" % PREFIX`, `% (A, B)`; every value a known string), such a constant of another '
            "project module or one a class body binds once, named through imports "
            "(`kind=END_OF_RUN` imported from a shared module, `kind=Kinds.RESET` for an Enum "
            "member, `kind=Kinds.RESET.value` for its value where `Kinds` derives from a "
            "standard `enum` class, directly or through project classes of any module, none "
            "binding `__new__`, `__init__` or `_generate_next_value_`; reported "
            "at the name given), an entry of a module-level table of strings looked up with a "
            'literal key (`kind=KINDS["reset"]` after `KINDS = {"reset": "EpisodeReset"}`, a dict '
            "display whose keys are all literals, bound once, and only read in its module: "
            "subscripted, `get`, `in`, unpacked; the module's own or one imported by name, "
            "through re-exports; reported at the subscript, in the call, in the class body or "
            "where a method sets it), another module's such constant imported and folded into a "
            "call's or a construction's kind or one a method or the class body sets "
            '(`kind=f"{PREFIX}Start"`, `kind = PREFIX + "Done"` after '
            "`from .kinds import PREFIX`; reported where the value is written), a field's default factory "
            '(`Field(default_factory=lambda: "EpisodeEnd")`), and a local variable of the '
            "function building the event (or of the method setting it: `self.kind = kind`) that is "
            "only ever assigned such strings "
            '(`kind = "EpisodeEnd" if done else "Step"`, reported at each literal). A `"kind"` key of '
            "a local dict unpacked into a construction counts too (see DOM104), and a literal "
            'string given by position (`Stats("EpisodeEnd", 3)`, also to `cls`, `type(self)`, '
            "`self.__class__` or `partial`) where it binds the kind field: only where the "
            "order of the fields is certain, for a dataclass (one `@dataclass` decorator, no "
            "`init=False` or `kw_only`, no `__init__` of its own, fields read in the class "
            "body, `KW_ONLY`, `ClassVar`, `InitVar` and `field(init=..., kw_only=...)` "
            "honoured) or a class-form NamedTuple (`Generic[T]` beside it adds no field), whose "
            "bases are plain project classes "
            "with no constructor or dataclasses alike, one base each (a pydantic model "
            "takes no positional field). So is a literal string given by position to an emit "
            'function called by name (`emit_step("EpisodeEnd", n)`) where it binds a parameter '
            "named in `kind_attributes` (one no configuration names, where its definition also "
            "passes that parameter on as the event's kind: `TelemetryEvent(kind=kind, **fields)`): "
            "only where the function is the project's, defined at "
            "module level by one `def` with no decorator, its name bound nowhere else in a module "
            "that star-imports nothing, or a method a class calls on its own instance "
            '(`self._emit("EpisodeEnd")`) that the class\'s own body defines so, `self` taking '
            "no position (another object's method is not read: which class it is is not known)."
        ),
        remedy="Name the kind after what happened in the runtime (`object_recognized`).",
        example='class Done(TelemetryEvent):\n    KIND = "post_episode"',
    ),
    Rule(
        code="DOM104",
        name="experiment-word-in-event-keyword",
        family="vocabulary",
        # ``given`` "keyword" and ``how`` "constructing" ("given to" an emit function); for
        # an attribute set on an event, "attribute" and "set on"; for a key in a keyword's
        # value, "key" and "in 'stats' given to"
        message="{given} '{name}' {how} {owner}: experiment vocabulary '{word}'{hint}",
        summary=(
            "Runtime code constructs an event (or calls an emit function) passing an experiment-vocabulary "
            "keyword, or sets such an attribute on one."
        ),
        rationale=(
            "Passing `episode=` when building an event smuggles experiment state into the "
            "runtime even when the event class itself accepts arbitrary keywords. A keyword "
            'unpacked from a dict display or a `dict(...)` call (`**{"episode": n}`, '
            "`**dict(episode=n)`, `**dict(stats, episode=n)`, and one on either side of `|`: "
            '`**(base | {"episode": n})`) '
            "is named all the same, and so is a key of a local dict the "
            'construction is given (`payload = {"episode": n}; Event(**payload)`, '
            '`payload["episode"] = n`, `payload.update(episode=n)`, `payload |= {"episode": n}`, '
            "into any construction below), "
            "reported where the key is written, when the function binds the name once, to a dict "
            "display or `dict(...)` (and merges keys into it with `|=`), and only reads it, "
            "unpacks it or adds keys to it before the call "
            "(a parameter, a global, a name bound again, a dict a key may leave or one given to "
            "other code is not followed); the keys of any other mapping are not known. "
            "An event is constructed by a call of its class (or of a local name the function binds "
            "once to it: `Event = TelemetryEvent; Event(episode=n)`), and by "
            "`Event.model_construct(...)`, `Event.model_validate({...})` (and `model_validate_strings`), "
            "`functools.partial(Event, ...)` (and a call of a module-level name the module binds "
            "once, to one: `Resampled = partial(Event, kind=...); Resampled(episode=n)`, the "
            "form `partial Resampled`), "
            "`cls(...)` in a class method of an event class and `type(self)(...)`, "
            "`self.__class__(...)` or `super().__init__(...)` in one of its methods, and by "
            "`x.model_copy(update={...})` or "
            "`dataclasses.replace(x, ...)` where `x` is known to be an event (the method's `self`, or "
            "a local variable only ever assigned a construction of one event class, or a construction "
            "itself: `Event(...).model_copy(update={...})`). "
            "The keywords given to an emit function become the fields of the "
            "event it emits, and are read alike (`keyword 'episode' given to emit_step`; written "
            "out, unpacked from a dict display or `dict(...)`, or a local dict's keys): a "
            "configured `emit_functions` callee, or, with no configuration, a function of the "
            "project that constructs an event unpacking its own `**` parameter "
            "(`def emit_reach(kind, **fields): return TelemetryEvent(kind=kind, **fields)`, or "
            "`TelemetryEvent.model_validate(fields)`), called in its module or through imports: "
            "defined at module level by one `def` with no decorator, its name bound nowhere "
            "else in a module that star-imports nothing, and the parameter bound nowhere else in "
            "it; or a method so built, called on its class's own instance in that class "
            "(`self._publish(episode=n)`), which the class's own body defines by one `def` with "
            "no decorator, its name bound nowhere else there nor set on `self`, `self` taking no "
            "position (a method of another object or an inherited one, a decorated function, one "
            "of another package, or one that passes its keywords on through another call is an "
            "emit function only where `emit_functions` names it); either is reported alike, once, "
            "under the same fingerprints, but for a "
            "keyword naming a parameter of the unconfigured function's own that it does not "
            "pass on under its name (`throttle` in `def publish(kind, *, throttle=0, **fields)`): "
            "that binds the parameter, not the event. "
            "A keyword's value becomes a field, and the keys written in it reach every subscriber "
            "as surely: a literal string key of a dict display or a `dict(...)` call given as the "
            "value of a keyword (or of a key of a local dict) any construction or emit function "
            "above is given, to any depth of those and of list and tuple displays "
            '(`stats={"episode": n}`, `rows=[dict(epoch=n)]`), a key put into a local dict given '
            "as the value (`stats=stats`: followed as above, when that is its one other use), and "
            "the keys of the JSON object a literal given to `Event.model_validate_json(...)` holds "
            "(its own keys are the fields) are reported where written "
            "(`key 'episode' in 'stats' given to StepEvent`). "
            "An attribute set on an event adds a field to it as surely (a pydantic model with "
            '`extra="allow"` emits it): `event.episode = n`, `setattr(event, "epoch", n)` and '
            "`object.__setattr__(event, \"epoch\", n)` are reported (`attribute 'episode' set on "
            "Event`) where `event` is a local variable the function only ever assigns a construction "
            "of one event class (as above; not a parameter, not `self`)."
        ),
        remedy="Do not pass experiment state from runtime code; the experiment adds it downstream.",
        example="telemetry.emit(MatchEvent(lm_id=1, episode=self.episode))",
    ),
    Rule(
        code="DOM105",
        name="event-value-from-experiment-knowledge",
        family="vocabulary",
        message="value of '{name}' {how} comes from {chain}: experiment vocabulary '{word}'{hint}",
        summary="A runtime event is built from a value derived from experiment knowledge.",
        rationale=(
            "The runtime should only emit what it is allowed to know; an event carrying "
            "experiment data means the runtime was given experiment data, however innocent "
            "the field's name (`object_id=self.primary_target`). The value of each keyword "
            "that constructs an event (in any construction DOM104 reads; a key of a local dict "
            "as it is put in) or is passed to an emit function (configured, or one its "
            "definition makes one: see DOM104; written "
            "out, or unpacked from a dict display, a `dict(...)` call or a local dict DOM104 "
            "would follow; one the function merges keys into with `|=` is traced whole where it "
            "is given, as a mapping whose keys are not known, as it was before DOM104 read them), "
            "of each mapping whose keys are not known given to either as fields (unpacked, "
            "`**stats`, or given to `model_validate(stats)` or as `model_copy(update=stats)`; "
            "put into such a local dict, `payload.update(stats)`, where it is put in), reported "
            "at the mapping as `'**stats'` (`(**)` in the fingerprint), "
            "of each attribute set on a constructed event, and of each field "
            "default, `__post_init__` assignment and validator of a runtime event (each value "
            "it returns, reported there) is traced "
            "to the names, attributes, subscript keys and callees it is computed from "
            '(a key read by `get`, `pop` or `setdefault` given a literal, `stats.get("epoch")`, '
            'is read as `stats["epoch"]`, and an attribute read by the builtin `getattr` given a literal name, '
            '`getattr(self.lm, "primary_target", None)`, as `self.lm.primary_target`, '
            "but each named only when nothing else the value is computed from uses a word): "
            "within the function, through its local variables (assignments, augmented "
            "assignments, assignment expressions, unpacking, comprehensions, f-strings, "
            "literals, containers filled with `append` or `x[k] = ...`, conditional "
            "expressions, branches and loops) and those of the functions it is nested "
            "in, and one call level into a function or "
            "method of the project whose return value is derived from such knowledge (there "
            "flow-insensitively; `self.name()` is the nearest definition in the method "
            "resolution order of the class's bases as written, `super().name()` the nearest "
            "of its bases; reading `self.name` in a method calls it, and is followed alike, "
            "when that nearest definition is a `@property` or a `functools.cached_property`: "
            "`self.expected reading self.primary_target`, fingerprinted as `self.expected()`, "
            "and only when nothing else the value is computed from uses a word). So is each value given by position, before any starred argument, "
            "to such a construction (a call of the class, `cls`, `type(self)`, `self.__class__`, "
            "`super().__init__` or `partial` after the class) or to a call of an emit function, "
            "reported at the value and named by the field it binds where the order of the "
            "fields is certain (as DOM103 reads a kind given by position: `'object_id'`; a field "
            "named with a word is DOM101's where it is declared, and a value given it is traced "
            "all the same), else by its place (`'argument 2'`; `positional` and "
            "the field or the place in the fingerprint); not one given to a pydantic model (it "
            "takes none), nor an event given "
            "whole (`emit(MatchEvent(...))`, or a local holding one: its own values are traced "
            "where it is built). Values unpacked from a sequence (`Event(*values)`), "
            "values kept on `self` by another method, deeper calls and the conditions of "
            "`if` statements are not followed. A keyword named with a word is DOM104's (and "
            "so is such an attribute set on an event DOM104 knows); a key written in a "
            "keyword's value is no value: DOM104 reads it, and the value is traced whole all "
            "the same; a "
            "value read straight from a parameter named with a word is left to DOM112 "
            "when the contract's `scope` includes `parameters`."
        ),
        remedy=(
            "Emit what the runtime itself observed (`object_id=self.detected_object`) and "
            "let the experiment attach its own knowledge downstream, for example in a "
            "post-episode handler."
        ),
        example=(
            "stats = get_graph_lm_episode_stats(self)\n"
            "emit(TerminalStats(lm_id=self.lm_id, stats=stats))\n"
            "emit(TerminalStats(lm_id=self.lm_id, **stats))\n"
            "emit(MatchEvent(self.lm_id, self.primary_target))"
        ),
    ),
    Rule(
        code="DOM111",
        name="experiment-word-in-attribute",
        family="vocabulary",
        message="attribute {owner}.{name}: experiment vocabulary '{word}'{hint}",
        summary="A runtime class declares an attribute named with experiment vocabulary.",
        rationale=(
            "A runtime object that keeps `self.primary_target` or a class-level `epochs` holds "
            "experiment knowledge: it cannot run without an experiment to tell it what to expect. "
            "Reported when a vocabulary contract's `scope` includes `attributes`, once per class "
            "and name, at the first assignment (class-level, or `self.<name> = ...` in a method); "
            "a name no assignment declares, at its first other declaration: an entry of "
            "`__slots__`, `for self.<name> in`, `with ... as self.<name>`, `self.<name> += ...`, "
            'or `setattr(self, "<name>", ...)` with a literal name.'
        ),
        remedy=(
            "Move the state to the experiment, which may keep it beside the runtime object; "
            "while migrating, record existing ones with `domain-fence baseline` so only new ones fail."
        ),
        example="class EvidenceLM:\n    def reset(self):\n        self.primary_target = None",
    ),
    Rule(
        code="DOM112",
        name="experiment-word-in-parameter",
        family="vocabulary",
        message="parameter '{name}' of {owner}: experiment vocabulary '{word}'{hint}",
        summary="A runtime function or method takes a parameter named with experiment vocabulary.",
        rationale=(
            "A parameter such as `min_train_steps` makes every caller, and so the runtime's "
            "interface, speak about the experiment. Reported when a vocabulary contract's `scope` "
            "includes `parameters`; keywords passed in calls (`np.pad(mode=...)`) are not parameters. "
            "A lambda bound to a name in a module or class body (`scale = lambda epochs: ...`) "
            "takes its parameters as a function or method of that name does; the parameters of "
            "functions and lambdas inside a function body are local, as its variables are."
        ),
        remedy=(
            "Name the parameter for what the runtime does with it (`min_steps`), or let the "
            "experiment decide and pass the runtime a plain value."
        ),
        example="class EvidenceLM:\n    def __init__(self, min_train_steps: int): ...",
    ),
    Rule(
        code="DOM113",
        name="experiment-word-in-definition-name",
        family="vocabulary",
        message="{kind} {name}: experiment vocabulary '{word}'{hint}",
        summary="A runtime class, function or method is named with experiment vocabulary.",
        rationale=(
            "A runtime function named `pre_episode` or a method `post_epoch` exists to serve the "
            "experiment's life cycle: the runtime is organised around the experiment. Reported "
            "when a vocabulary contract's `scope` includes `definitions`. A definition by "
            "assignment (a *binding*) counts when it evidently binds a function, class or method: "
            "a lambda, a `partial(...)` or one of the module's own functions or classes at module "
            "level (`pre_episode = _reset`), a method-like value in a class body "
            "(`on_epoch = staticmethod(f)`, which DOM111 leaves out); a module constant is not a "
            "definition."
        ),
        remedy=(
            "Move the definition under the experiment package, or rename it for what the runtime "
            "does (`reset` rather than `pre_episode`)."
        ),
        example="class EvidenceLM:\n    def pre_episode(self): ...",
    ),
    Rule(
        code="DOM201",
        name="symbol-defined-outside-allowed-modules",
        family="placement",
        message="{kind} {name} is defined outside {allowed}; move it there",
        summary="A symbol is defined outside the modules allowed to hold it.",
        rationale=(
            "Experiment-only machinery such as `init_telemetry` and the post-episode handlers "
            "must live under the experiment package, so the runtime can be installed and run "
            "without it. A definition is a module-level `def` or `class`, a method, a class "
            "nested in a class body (`EvidenceLM.PostEpisodeStats`, kind `class`), or a name bound "
            "by assignment at module level or in a class body (`init_telemetry = _setup`, "
            "`= lambda ...`, `= functools.partial(...)`, `post_episode = staticmethod(f)`, "
            "`from .helpers import setup as init_telemetry`; kind `binding`), or a function attached "
            "to a class from outside its body (`EvidenceGraphLM.post_episode = _reset`, "
            '`setattr(EvidenceGraphLM, "post_episode", _reset)`, in a function too; kind `binding`, '
            "named `EvidenceGraphLM.post_episode`): the name can be imported and called there all the same."
        ),
        remedy=(
            "Move the definition under an allowed module and import it from there. Importing "
            "or re-exporting the symbol elsewhere is fine (`Alias = experiment.Handler`, which only "
            "names an imported object, is a re-export) when the object is what the pattern names "
            "(a re-export giving a reserved name to a helper of another name defines it); a "
            "method or class-level binding of that "
            "name is a definition too, unless the contract's `kinds` leaves methods out."
        ),
        example="# minimonty/frameworks/telemetry/setup.py\ndef init_telemetry(config): ...",
    ),
    Rule(
        code="DOM301",
        name="forbidden-direct-import",
        family="boundary",
        message="{importer} imports forbidden {imported}",
        summary="A runtime module imports a forbidden (experiment) module directly.",
        rationale=(
            "Runtime code that imports experiment code cannot run without the experiment. "
            "Reported at the imported name of every import statement that crosses the boundary."
        ),
        remedy="Invert the dependency: let the experiment import the runtime, never the reverse.",
        example="# minimonty/frameworks/models/lm.py\nfrom minimonty.experiment import mode",
    ),
    Rule(
        code="DOM302",
        name="forbidden-import-chain",
        family="boundary",
        message="{importer} imports forbidden {imported} through {chain}",
        summary="A runtime module reaches a forbidden module through a chain of imports.",
        rationale=(
            "An indirect import is still a dependency: importing a helper that imports the "
            "experiment pulls the experiment in at run time."
        ),
        remedy="Break the chain at the first import leaving the runtime package.",
        example="# a -> helpers -> experiment",
    ),
    Rule(
        code="DOM303",
        name="import-contract-broken",
        family="boundary",
        message="{type} contract '{contract}' broken: {what}",
        summary="An import-linter contract of the configuration (forbidden, layers, ...) is broken.",
        rationale=(
            "`domain-fence check` runs every contract of the configuration, import-linter's own "
            "types too, so one report and one exit status cover the whole architecture. Each "
            "offending import chain is reported at its first import; a contract whose report "
            "names no import is reported at its section of the configuration."
        ),
        remedy="Remove the import, or change the contract if the architecture changed; `lint-imports` shows the same.",
        example="# layers: pkg.core must not import pkg.cli\nfrom pkg.cli import main",
    ),
]

RULES: dict[str, Rule] = {rule.code: rule for rule in _RULES}

# Codes once used and never to be reused: code -> why it was retired.
RETIRED: dict[str, str] = {}


def get_rule(code: str) -> Rule:
    """Return the rule for ``code`` (case-insensitive); KeyError names the valid codes."""
    try:
        return RULES[code.upper()]
    except KeyError:
        raise KeyError(f"unknown rule code {code!r}; known codes: {', '.join(RULES)}") from None


def rules_of_family(family: str) -> list[Rule]:
    return [rule for rule in RULES.values() if rule.family == family]
