"""Shell completion scripts for the three tools, both forms (the Apache flags and our
subcommands), for bash, zsh and fish.

Each script asks the tool itself what to offer (``_KAFKA_TOOLS_COMPLETE=<shell>``, answered by
:mod:`kafka_groups.cli.complete`), so live group and topic names come from the cluster named
on the line. ``python -m kafka_groups.cli.completions`` rewrites ``completions/``; a test
compares the checked-in files with what this module makes. A user installs one with
``<tool> --show-completion <shell>`` (see the README's "Shell completion").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

PROGRAMS = ("kafka-consumer-groups", "kafka-streams-groups", "kafka-topics")
SHELLS = {"bash": "{prog}.bash", "zsh": "_{prog}", "fish": "{prog}.fish"}

_BASH = """\
# bash completion for {prog} (kafka-group-tools): the Apache flag form and the subcommands.
# Install: {prog} --show-completion bash > ~/.local/share/bash-completion/completions/{prog}
#     (or add to ~/.bashrc: eval "$({prog} --show-completion bash)")
{func}() {{
    local IFS=$'\\n'
    local -a reply
    reply=( $(_KAFKA_TOOLS_COMPLETE=bash COMP_LINE="$COMP_LINE" COMP_POINT="$COMP_POINT" \\
              COMP_WORDBREAKS="$COMP_WORDBREAKS" "$1" 2>/dev/null) )
    COMPREPLY=( "${{reply[@]:1}}" )
    if [[ ${{reply[0]}} == files ]]; then
        compopt -o default 2>/dev/null
        COMPREPLY=()
    fi
    return 0
}}
complete -F {func} {prog}
"""

_ZSH = """\
#compdef {prog}
# zsh completion for {prog} (kafka-group-tools): the Apache flag form and the subcommands.
# Install: {prog} --show-completion zsh > "${{fpath[1]}}/_{prog}"   (then: compinit)
{func}() {{
    local -a lines reply
    lines=( "${{(@f)$(_KAFKA_TOOLS_COMPLETE=zsh "${{words[1]}}" "${{(@Q)words[2,CURRENT]}}" 2>/dev/null)}}" )
    if [[ ${{lines[1]}} == files ]]; then
        _files
        return
    fi
    reply=( "${{(@)lines[2,-1]}}" )
    (( ${{#reply}} )) || return 1
    _describe -V -t values '{prog}' reply
}}
if [[ "${{funcstack[1]}}" == "{func}" ]]; then
    {func} "$@"
else
    compdef {func} {prog}
fi
"""

_FISH = """\
# fish completion for {prog} (kafka-group-tools): the Apache flag form and the subcommands.
# Install: {prog} --show-completion fish > ~/.config/fish/completions/{prog}.fish
function {func}
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (env _KAFKA_TOOLS_COMPLETE=fish $tokens "$current" 2>/dev/null)
    if test "$out[1]" = files
        __fish_complete_path "$current"
    else if set -q out[2]
        printf '%s\\n' $out[2..-1]
    end
end
complete -c {prog} -f -a '({func})'
"""

_TEMPLATES = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}


def completion_script(prog: str, shell: str) -> str:
    func = "_{}_complete".format(prog.replace("-", "_"))
    return _TEMPLATES[shell].format(prog=prog, func=func)


def _install_path(prog: str, shell: str) -> Path:
    home = Path.home()
    if shell == "bash":
        data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
        return data / "bash-completion" / "completions" / prog
    if shell == "zsh":
        return home / ".zfunc" / f"_{prog}"
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return config / "fish" / "completions" / f"{prog}.fish"


_AFTER_INSTALL = {
    "bash": "bash-completion loads it in new shells (or: source {path})",
    "zsh": "new shells load it once ~/.zshrc has, before compinit: fpath=(~/.zfunc $fpath)",
    "fish": "new fish shells load it",
}


def install_or_show(prog: str, install: bool, args: Sequence[str]) -> int:
    """``--show-completion [SHELL]`` prints the script; ``--install-completion [SHELL]`` writes
    it where that shell finds completions. The shell defaults to the one in ``$SHELL``."""
    from kafka_groups.errors import UsageError

    shell = args[0] if args else os.path.basename(os.environ.get("SHELL", ""))
    if shell not in _TEMPLATES:
        raise UsageError(f"Completion is available for bash, zsh and fish, not '{shell}': name the shell")
    script = completion_script(prog, shell)
    if not install:
        sys.stdout.write(script)
        return 0
    path = _install_path(prog, shell)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    note = _AFTER_INSTALL[shell].format(path=path)
    print(f"{shell} completion for {prog} installed in {path}; {note}.")
    return 0


def expected_files() -> dict[str, str]:
    """Relative path under completions/ -> script text."""
    return {
        f"{shell}/{pattern.format(prog=prog)}": completion_script(prog, shell)
        for prog in PROGRAMS
        for shell, pattern in SHELLS.items()
    }


def write(root: Path) -> None:
    for rel, text in expected_files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


if __name__ == "__main__":
    # python -m kafka_groups.cli.completions [DIR]: regenerate the scripts (into completions/).
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        sys.exit("usage: python -m kafka_groups.cli.completions [DIR]")
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "completions")
