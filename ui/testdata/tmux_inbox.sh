#!/usr/bin/env bash
# The inbox as a person sees it (issue 11): the real binary in a real
# terminal (tmux, 80×24). Drafts captured by the CLI wait in the Inbox;
# /consolidate turns them into memories and shows its report; the
# correction supersedes the fact it corrects, checked in the store with the
# CLI; /undo takes the run back.
# Usage: tmux_inbox.sh CAIRN_BINARY WORKDIR   (CAIRN_HOME must be set)
set -euo pipefail
bin=$1
work=$2
: "${CAIRN_HOME:?set CAIRN_HOME to a scratch directory}"
session="cairn-e2e-inbox-$$"
cairn() { (cd "$work" && env -u CAIRN_LLM_URL "$bin" "$@"); }

cairn remember -l B "Deploys go through ArgoCD." >/dev/null
cairn capture "No, actually deploys go through Spinnaker, not ArgoCD." >/dev/null
cairn capture "I prefer table-driven tests for parsers." >/dev/null

tmux new-session -d -s "$session" -x 80 -y 24 -c "$work" \
  "env -u CAIRN_LLM_URL CAIRN_HOME='$CAIRN_HOME' CAIRN_IDLE=1s NO_COLOR= '$bin'"
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
wait_re() {
  for _ in $(seq 150); do
    if screen | grep -qE -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "timed out waiting for: $1" >&2
  screen >&2
  exit 1
}

wait_re "Inbox +2 "
tmux send-keys -t "$session" "i"
wait_for "Inbox 2 drafts · 0 proposals"
wait_for "No, actually deploys go"
tmux send-keys -t "$session" "/"
wait_for "tab completes"
tmux send-keys -t "$session" -l "consolidate"
tmux send-keys -t "$session" Enter
wait_for "Consolidation run"
wait_for "superseded 'Deploys go through ArgoCD"
wait_for "/undo"
run=$(screen | grep -oE -- '--undo [0-9A-Z]{26}' | head -1 | cut -d' ' -f2)
[ -n "$run" ] || { echo "the report names no run" >&2; screen >&2; exit 1; }
cairn list --json | grep -qF "Spinnaker" || { echo "the store lacks the corrected fact" >&2; exit 1; }
if cairn list --json | grep -qF "through ArgoCD"; then
  echo "the corrected fact is still served as current" >&2
  exit 1
fi

tmux send-keys -t "$session" Escape
wait_for "Timeline"
tmux send-keys -t "$session" "/"
wait_for "tab completes"
tmux send-keys -t "$session" -l "undo $run"
tmux send-keys -t "$session" Enter
wait_for "undid run"
wait_re "Inbox +2 "
cairn list --json | grep -qF "through ArgoCD" || { echo "the undo did not bring the fact back" >&2; exit 1; }
tmux send-keys -t "$session" "q"
for _ in $(seq 50); do tmux has-session -t "$session" 2>/dev/null || break; sleep 0.1; done
echo "tmux inbox: ok"
