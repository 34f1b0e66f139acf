#!/usr/bin/env bash
# Another shell writes while the workbench is open (issue 10 items 16 and 3):
# the real binary in a real terminal (tmux) shows a memory whose body holds
# an escape that would retitle the terminal, and the title stays ours; a
# remember from another process lands above the selected memory, and a
# archives the selected one, not the newcomer. Checked in the store with the CLI.
# Usage: tmux_other_writer.sh CAIRN_BINARY WORKDIR   (CAIRN_HOME must be set)
set -euo pipefail
bin=$1
work=$2
: "${CAIRN_HOME:?set CAIRN_HOME to a scratch directory}"
session="cairn-e2e-other-$$"
cairn() { (cd "$work" && "$bin" "$@"); }

# The body's second paragraph would retitle the terminal and clear it if it
# reached it raw.
cairn remember -l A "$(printf 'Deploys go through ArgoCD\n\nSync by hand: \033]0;pwned\007\033[2J done')" >/dev/null

tmux new-session -d -s "$session" -x 120 -y 40 -c "$work" \
  "env CAIRN_HOME='$CAIRN_HOME' CAIRN_IDLE=1s NO_COLOR= '$bin'"
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT

screen() { tmux capture-pane -p -t "$session"; }
wait_for() {
  for _ in $(seq 150); do
    if screen | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "timed out waiting for: $1" >&2
  screen >&2
  exit 1
}

wait_for "> ●  Deploys go through ArgoCD"
wait_for "Sync by hand: ␛]0;pwned␇␛[2J done"
title=$(tmux display -p -t "$session" '#{pane_title}')
case $title in
*pwned*) echo "the memory's body retitled the terminal: $title" >&2; exit 1 ;;
esac

cairn remember -l A "Agents must run the linter before proposing a patch" >/dev/null
wait_for "Agents must run the linter"
wait_for "> ●  Deploys go through ArgoCD"
tmux send-keys -t "$session" "a"
wait_for "archived \"Deploys go through ArgoCD\""
tmux send-keys -t "$session" "q"
for _ in $(seq 50); do tmux has-session -t "$session" 2>/dev/null || break; sleep 0.1; done

archived=$(cairn list --json --status archived)
if ! grep -qF "Deploys go through ArgoCD" <<<"$archived"; then
  echo "the selected memory was not archived" >&2
  exit 1
fi
if grep -qF "Agents must run the linter" <<<"$archived"; then
  echo "a archived the other process's memory" >&2
  exit 1
fi
echo "tmux other writer: ok"
