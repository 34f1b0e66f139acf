#!/usr/bin/env bash
# The workbench as a person sees it: the real binary in a real terminal
# (tmux), a /remember typed on the command line, then a /forget confirmed
# after the dialog showed the stored text; the store is checked with the CLI.
# Usage: tmux_e2e.sh CAIRN_BINARY WORKDIR   (CAIRN_HOME must be set)
set -euo pipefail
bin=$1
work=$2
: "${CAIRN_HOME:?set CAIRN_HOME to a scratch directory}"
session="cairn-e2e-$$"
tmux new-session -d -s "$session" -x 100 -y 30 -c "$work" \
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

wait_for "Welcome to cairn"
tmux send-keys -t "$session" "/"
wait_for "tab completes"
tmux send-keys -t "$session" -l "remember -l A Typed in tmux: never force-push main"
tmux send-keys -t "$session" Enter
wait_for "✓ remembered \"Typed in tmux"
wait_for "> ●  Typed in tmux"
(cd "$work" && "$bin" list --json) | grep -qF "never force-push main" || { echo "the store lacks the remembered text" >&2; exit 1; }

tmux send-keys -t "$session" "/"
wait_for "tab completes"
tmux send-keys -t "$session" -l "forget"
tmux send-keys -t "$session" Enter
wait_for "Forget this memory for good?"
wait_for "never force-push main"
tmux send-keys -t "$session" "y"
wait_for "for good"
wait_for "Welcome to cairn"
tmux send-keys -t "$session" "q"
for _ in $(seq 50); do tmux has-session -t "$session" 2>/dev/null || break; sleep 0.1; done

if (cd "$work" && "$bin" list --json --status all) | grep -qF "force-push"; then
  echo "the forgotten memory is still in the store" >&2
  exit 1
fi
echo "tmux e2e: ok"
