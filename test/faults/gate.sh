#!/bin/sh
# The fault tests' gate: sleeps a moment (so kills land mid-gate), then fails a train that
# carries any CULPRIT-* file. FAULT_GATE_SLEEP sets the pause (seconds, default 0.07).
sleep "${FAULT_GATE_SLEEP:-0.07}"
for f in CULPRIT-*; do
  if [ -e "$f" ]; then
    echo "found $f: failing" >&2
    exit 1
  fi
done
echo "no culprit: passing"
exit 0
